"""The executor under test as an MCP server (stdio command or streamable-HTTP URL).

A ``Call`` fixture goes through the harness's :class:`McpExecutor` and executor loop
(:func:`.targets.through`); a raw tool call is sent as it is and its result read with
the executor's own functions (:func:`~harness.hooks.remote.mcp.reply_payload`,
:func:`~harness.hooks.remote.reply.decode_reply`). MCP calls are not signed, so no
``signature`` fixture runs here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from pydantic import ValidationError

from harness.hook_server.conformance.fixture import Call, Fixture, RawMcp
from harness.hook_server.conformance.targets import (
    RAW_TIMEOUT,
    Got,
    aborted,
    replaced,
    short,
    through,
)
from harness.hooks.catalogue import points
from harness.hooks.errors import HookAbort
from harness.hooks.remote.mcp import McpExecutor, reply_payload
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.reply import TOOL_PREFIX, decode_reply
from harness.hooks.remote.wire import WireError, summarise_validation
from harness.redaction import Redactor

_FALLBACK_POINT = "tool.invoked.pre"
"""The context a result of a tool that is no hook point is read as."""


class McpTarget:
    """An MCP executor: a stdio command line, or a streamable-HTTP URL.

    Args:
        server: the URL, or the command as a sequence.
    """

    transport: Literal["jsonrpc", "mcp"] = "mcp"

    def __init__(self, server: str | Sequence[str]) -> None:
        self.connection = McpConnection(server)
        self.endpoint = self.connection.endpoint

    @property
    def signs(self) -> bool:
        """Never: the harness signs no MCP call."""
        return False

    async def connect(self) -> None:
        """Open the session (start the server) so its start counts against no fixture.

        Raises:
            Exception: whatever spawning or the handshake raised.
        """
        await self.connection.connect()

    async def send(self, fixture: Fixture) -> Got:
        """Send ``fixture`` through an :class:`McpExecutor`, or as its raw tool call."""
        send = fixture.send
        if isinstance(send, Call):
            executor = McpExecutor(self.connection, point=send.point, timeout=send.timeout)
            return await through(executor, executor.name, send)
        if isinstance(send, RawMcp):
            return await self._raw(send)
        return Got("invalid", "a JSON-RPC fixture cannot be sent over MCP")

    async def _raw(self, send: RawMcp) -> Got:
        try:
            result = await self.connection.call_tool(
                send.tool, send.arguments, timeout=RAW_TIMEOUT, meta=send.meta
            )
        except MCPError as error:
            return Got(
                "error",
                short(f"protocol error {error.error.code}: {error.error.message}"),
                code=error.error.code,
            )
        except Exception as error:  # the kit reports any failure of the peer, never crashes
            return Got("transport_error", short(f"{type(error).__name__}: {error}"))
        point = send.tool.removeprefix(TOOL_PREFIX)
        return read_tool_result(result, point if point in points() else _FALLBACK_POINT)

    async def aclose(self) -> None:
        """Close the session and stop a stdio server."""
        await self.connection.aclose()


def read_tool_result(result: CallToolResult, point: str) -> Got:
    """Name an MCP tool result as the harness reads a hook reply at ``point`` (or an error)."""
    if result.is_error:
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return Got("error", short("isError result: " + " ".join(texts)))
    try:
        out = decode_reply(point, reply_payload(result), Redactor())
    except HookAbort as abort:
        return aborted(abort)
    except ValidationError as error:
        return Got("invalid", short(f"the harness cannot read it: {summarise_validation(error)}"))
    except (WireError, ValueError) as error:
        return Got("invalid", short(f"the harness cannot read it: {error}"))
    return replaced(None, out)
