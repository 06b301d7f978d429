"""The trace context an MCP call sends is its caller's, not the MCP SDK's (issue 28).

The mcp SDK (2.x) opens a client span of its own around each request it sends and injects
that span's W3C context, through the process's global propagator, into the request's
``_meta``, over what the caller put there (and, with the default propagators, the process's
``baggage``). A remote executor would continue the trace under the SDK's span instead of the
decision span docs/hooks/tracing.md names, and would receive baggage the harness never sends.
:class:`PinnedTrace` wraps a session's write stream: a ``tools/call`` written while
:func:`pinned` holds the caller's ``_meta`` leaves with the caller's trace keys, and none it
did not give. The SDK's span is still made (a leaf under the decision span); which trace
context to send is :mod:`.trace_context`'s choice, and :mod:`.mcp_connection` pins it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final, final

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest

TRACE_KEYS: Final = ("traceparent", "tracestate", "baggage")
"""What the SDK's propagators may write into ``_meta``: the caller's values, or nothing."""

_PINNED: ContextVar[Mapping[str, Any] | None] = ContextVar("harness_mcp_meta", default=None)
"""The ``_meta`` of the call this task is making. A ContextVar: the SDK writes a request in the
caller's task, and concurrent calls over one session each see their own."""


@contextmanager
def pinned(meta: Mapping[str, Any] | None) -> Iterator[None]:
    """Within it, a ``tools/call`` this task writes carries ``meta``'s trace keys and no other;
    with ``None`` (an agent's MCP tool, not a hook) the SDK's, as they were."""
    token = _PINNED.set(meta)
    try:
        yield
    finally:
        _PINNED.reset(token)


def repin(request: JSONRPCRequest, meta: Mapping[str, Any]) -> None:
    """Put ``meta``'s trace keys in ``request``'s ``_meta`` (built for this request by the SDK)
    in place of the SDK's, and drop those ``meta`` does not have."""
    if request.method != "tools/call" or not isinstance(request.params, dict):
        return
    sent = request.params.get("_meta")
    if not isinstance(sent, dict):
        return
    for key in TRACE_KEYS:
        if key in meta:
            sent[key] = meta[key]
        else:
            sent.pop(key, None)
    if not sent:
        del request.params["_meta"]


@final
class PinnedTrace:
    """A transport's write stream whose ``tools/call`` requests carry their caller's trace keys.

    Args:
        stream: the transport's write stream (``send``, ``aclose``, an async context manager).
    """

    def __init__(self, stream: Any) -> None:  # noqa: ANN401  # the SDK's WriteStream
        self._stream = stream

    async def send(self, item: SessionMessage) -> None:
        """Write ``item``, its trace keys the caller's when it is a pinned ``tools/call``."""
        meta = _PINNED.get()
        if meta is not None and isinstance(item.message, JSONRPCRequest):
            repin(item.message, meta)
        await self._stream.send(item)

    async def aclose(self) -> None:
        """Close the transport's stream."""
        await self._stream.aclose()

    async def __aenter__(self) -> PinnedTrace:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._stream.aclose()

    def __getattr__(self, name: str) -> Any:  # noqa: ANN401  # whatever else the SDK reads
        return getattr(self._stream, name)
