"""Which schema version a hook request follows, and the server helpers' check of it.

JSON-RPC says it in the :data:`~harness.hooks.remote.wire.SCHEMA_HEADER` header, MCP in
the tool call's ``_meta`` under :data:`SCHEMA_META_KEY` (beside a ``traceparent``). A
server built with our helpers refuses a request that names another version, because it
would misread it; a request that names none is accepted, since a hand-written client
(``curl``, a test) should not need to know. The versions themselves: :mod:`harness.hooks.schema`.
"""

from __future__ import annotations

from typing import Final

from harness.hooks.remote.wire import SCHEMA_HEADER, SCHEMA_VERSION

SCHEMA_META_KEY: Final = "tiny-harness.dev/schema"
"""The ``_meta`` key of an MCP hook call naming its :data:`SCHEMA_VERSION`."""


def schema_meta() -> dict[str, str]:
    """The ``_meta`` entry every MCP hook call carries."""
    return {SCHEMA_META_KEY: SCHEMA_VERSION}


def version_problem(given: object, *, where: str = SCHEMA_HEADER) -> str | None:
    """Why a request naming schema version ``given`` cannot be served, or ``None`` if it can.

    Args:
        given: the version the request names; ``None`` when it names none (accepted).
        where: the header or ``_meta`` key it came in, for the message.

    Returns:
        One line naming what was asked, what is served and the fix, or ``None``.
    """
    if given is None or given == SCHEMA_VERSION:
        return None
    return (
        f"schema version {given!r} (from {where}) is not served: this executor "
        f"speaks {SCHEMA_VERSION}; send {where}: {SCHEMA_VERSION} or none"
    )
