"""One byte sequence per value on the wire: sets are sent sorted, not in iteration order.

A set's iteration order follows its items' hashes, which Python randomises per process
for strings, so two equal contexts would give different request bytes (and different
signatures, idempotency checks and recorded payloads) across workers (issue 26). This
module only orders; :mod:`harness.hooks.remote.wire` and :mod:`.reply` encode.
"""

from __future__ import annotations

from typing import Any, TypeVar

import pydantic_core
from pydantic import BaseModel

T = TypeVar("T")


def canonical(value: T) -> T:
    """``value`` with every set inside it a list sorted by the items' JSON.

    Unchanged parts come back as the same objects; a model is copied only when a set
    sits inside it. Typed set fields are not expected in a context (their JSON is a
    list); the sets come in through JSON-like fields such as a call's arguments.

    Args:
        value: a context, a params dict, or any JSON-like value.

    Returns:
        The value to serialise: equal values give equal JSON in every process.
    """
    return _walk(value)  # type: ignore[no-any-return]  # the walk keeps the shape


def _walk(value: Any) -> Any:  # noqa: ANN401  # any JSON-like value
    if isinstance(value, set | frozenset):
        items = [_walk(item) for item in value]
        return sorted(items, key=pydantic_core.to_json)
    if isinstance(value, BaseModel):
        updates = {}
        for name, old in value.__dict__.items():
            new = _walk(old)
            if new is not old:
                updates[name] = new
        return value.model_copy(update=updates) if updates else value
    if isinstance(value, dict):
        pairs = [(key, old, _walk(old)) for key, old in value.items()]
        if all(new is old for _, old, new in pairs):
            return value
        return {key: new for key, _, new in pairs}
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        items = [_walk(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items
    return value
