"""The frozen building blocks of every value: :class:`Frozen`, and read-only JSON fields.

Plain values with no hook semantics; :mod:`harness.hooks.contexts` builds its contexts
on :class:`Frozen`. Nothing here imports the rest of harness.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NoReturn, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(dict[K, V]):
    """A dict that refuses every change, whose nested values are frozen too.

    Contexts are *deeply* immutable (DESIGN.md, "Identity is not an executor's to
    change"): pydantic's ``frozen`` stops attribute assignment only, so an executor
    doing ``ctx.entities["x"] = ...`` would change the caller's copy and what later
    executors see. A dict subclass rather than a ``MappingProxyType`` because JSON
    encoders, pydantic and httpx take it as the dict it is; a change goes through
    ``ctx.model_copy(update=...)`` like any other.
    """

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401  # dict's own signature
        items = dict(*args, **kwargs)
        super().__init__({key: freeze(value) for key, value in items.items()})

    def _read_only(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(
            "hook contexts are read-only: return ctx.model_copy(update={...}) with a new value"
        )

    __setitem__ = __delitem__ = _read_only
    clear = pop = popitem = setdefault = update = _read_only  # every mutator refuses
    __ior__ = _read_only

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenDict[K, V]:
        return self

    def __reduce__(self) -> tuple[object, ...]:
        return (FrozenDict, (dict(self),))

    def __hash__(self) -> int:  # type: ignore[override]  # dict is unhashable; a frozen one need not be
        return hash(frozenset(self.items()))


def freeze(value: Any) -> Any:  # noqa: ANN401  # any JSON-like value
    """``value`` with every dict made a :class:`FrozenDict`, every list a tuple, every set frozen.

    Already frozen values come back as the same objects, so re-validating a
    context (every replacement is) costs one type check per field.
    """
    kind = type(value)
    if kind is FrozenDict or kind in _ATOMS:
        return value
    if isinstance(value, dict):
        return FrozenDict(value)
    if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
        items = tuple(freeze(item) for item in value)
        if kind is tuple and all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items
    if isinstance(value, set):
        return frozenset(value)
    return value


EMPTY: FrozenDict[Any, Any] = FrozenDict()
"""The default of every mapping field: one shared empty read-only dict. A
``default_factory`` would build one per comparison (``exclude_defaults`` calls it),
which doubled the redactor's serialisation cost (issue 9, ``bench/dispatch.py``)."""

_ATOMS: frozenset[type] = frozenset({str, int, float, bool, type(None), bytes})

FrozenJson = Annotated[Mapping[str, Any], AfterValidator(freeze)]
"""A JSON object field of a context: validated into a :class:`FrozenDict`, nested values too."""

FrozenStrMap = Annotated[Mapping[str, str], AfterValidator(freeze)]
"""A ``str -> str`` field of a context, read-only like :data:`FrozenJson`."""


class Frozen(BaseModel):
    """Immutable, closed-world value: unknown fields are errors, not silently kept."""

    model_config = ConfigDict(frozen=True, extra="forbid")
