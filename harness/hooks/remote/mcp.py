"""McpExecutor: a hook point served by an MCP server's tool ``hooks.<operation>.<phase>``.

The executor sends ``{"context": <ctx as JSON>}`` as the tool's arguments and reads a
:mod:`~harness.hooks.remote.reply` back from the result's ``structuredContent`` (or,
for servers that only send text, from a single JSON text block). Anything else is a
:class:`~harness.hooks.errors.HookTransportError`, so the operation fails through the
retry path; an ``abort`` reply is a :class:`~harness.hooks.errors.HookAbort`. The
session itself (spawning, reconnecting, closing) is :mod:`.mcp_connection`'s job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final, final

from mcp_types import CallToolResult, TextContent

from harness.hooks.catalogue import split_point
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.reply import decode_reply, encode_context, tool_name
from harness.hooks.remote.schema_version import schema_meta
from harness.hooks.remote.trace_context import trace_context
from harness.hooks.remote.wire import WireError, map_transport_errors
from harness.redaction import Redactor

DEFAULT_TIMEOUT: Final = 5.0
"""Seconds a call may take, connecting included, before it fails as a transport error."""

_MAX_ERROR_TEXT: Final = 300


@final
class McpExecutor:
    """Serve one hook point with an MCP tool; an async callable like any executor.

    The session is opened on the first call and kept for the next ones; after the
    server died, the next call opens a new one. Close it with :meth:`aclose` (or use
    ``async with``).

    Args:
        server: an ``http(s)://`` URL (streamable HTTP), a stdio command line as a
            sequence (``[sys.executable, "hooks.py"]``), or an :class:`McpConnection`
            shared with other executors (then this executor does not close it).
        point: the hook point served, ``<operation>.<phase>``; the tool called is
            ``hooks.<point>`` and a replacement must validate as that point's context.
        timeout: total deadline of one call in seconds, connecting included.
        redactor: scrubs the endpoint and error causes (they reach Temporal's history).
        env: extra environment variables for a stdio server.
        cwd: working directory of a stdio server.
        name: how logs, errors and abort records name this executor.

    Raises:
        UnknownHookPointError: ``point`` is not in the catalogue.
        ValueError: ``server`` is neither a URL nor a non-empty command, or
            ``timeout`` is not positive.
    """

    def __init__(
        self,
        server: str | Sequence[str] | McpConnection,
        *,
        point: str,
        timeout: float = DEFAULT_TIMEOUT,
        redactor: Redactor | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        name: str | None = None,
    ) -> None:
        operation, _ = split_point(point)
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.point = point
        self.context_type = context_type(operation)
        self.tool = tool_name(point)
        self.timeout = timeout
        self.redactor = redactor or Redactor()
        self._owns_connection = not isinstance(server, McpConnection)
        self.connection = (
            server if isinstance(server, McpConnection) else McpConnection(server, env=env, cwd=cwd)
        )
        self.endpoint = self.redactor.redact_text(self.connection.endpoint)
        self.name = name or f"mcp:{self.endpoint}#{point}"

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Call the tool with ``ctx`` and return its replacement, or ``None`` to pass through.

        Raises:
            HookAbort: the tool answered with an abort.
            HookTransportError: the server could not be spawned or reached, exited, was
                too slow, reported an error (``isError`` or a protocol error such as an
                unknown tool), sent no reply object, or a replacement that is not a
                valid context for the point; also a ``ctx`` of another point's type.
        """
        with map_transport_errors(self.point, self.endpoint, self.redactor):
            if type(ctx) is not self.context_type:
                raise WireError(
                    f"executor serves {self.point} ({self.context_type.__name__}) but was "
                    f"given a {type(ctx).__name__}; register it at the point it was built for"
                )
            async with asyncio.timeout(self.timeout):
                result = await self.connection.call_tool(
                    self.tool,
                    {"context": encode_context(ctx)},
                    timeout=self.timeout,
                    # The schema version, and the decision span's traceparent when tracing.
                    meta={**schema_meta(), **(trace_context() or {})},
                )
            return read_tool_result(self.point, result)

    async def aclose(self) -> None:
        """Close the session (and stop a stdio server) unless the connection is shared."""
        if self._owns_connection:
            await self.connection.aclose()

    async def __aenter__(self) -> McpExecutor:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"<McpExecutor {self.tool} at {self.endpoint} timeout={self.timeout}s>"


def read_tool_result(point: str, result: CallToolResult) -> HookContext | None:
    """What the harness makes of a hook tool's result: the replacement, or ``None``.

    The executor reads every result with it, and so does the conformance kit.

    Raises:
        HookAbort: the reply is an abort.
        WireError: the result is an error, or carries no reply object.
        ReplyError: the reply object does not conform, read strictly (fields named).
        ValidationError: a text reply is not JSON.
    """
    return decode_reply(point, _payload(result))


def _payload(result: CallToolResult) -> object:
    """The reply object a tool result carries.

    Raises:
        WireError: the result is an error, or carries no reply object.
    """
    if result.is_error:
        raise WireError(f"tool reported an error: {_text_of(result) or '(no text)'}")
    if isinstance(result.structured_content, dict):
        return result.structured_content
    if result.structured_content is not None:
        raise WireError(
            f"structuredContent is a {type(result.structured_content).__name__}, not an object"
        )
    blocks = result.content
    if len(blocks) != 1 or not isinstance(blocks[0], TextContent):
        kinds = ", ".join(block.type for block in blocks) or "nothing"
        raise WireError(f"no structuredContent and not one JSON text block (got {kinds})")
    return blocks[0].text


def _text_of(result: CallToolResult) -> str:
    text = " ".join(block.text for block in result.content if isinstance(block, TextContent))
    return text if len(text) <= _MAX_ERROR_TEXT else text[: _MAX_ERROR_TEXT - 3] + "..."
