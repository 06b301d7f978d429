"""The executor under test as an MCP server (stdio command or streamable-HTTP URL).

A ``Call`` fixture goes through the harness's :class:`McpExecutor` and executor loop
(:func:`.targets.through`); a raw tool call is sent as it is and its result read with
the executor's own :func:`~harness.hooks.remote.mcp.read_tool_result` (strictly: a field
of the wrong JSON type is refused by name). MCP calls are not signed, so no ``signature``
fixture runs here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

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
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.errors import HookAbort
from harness.hooks.remote.mcp import McpExecutor
from harness.hooks.remote.mcp import read_tool_result as read_hook_result
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.reply import TOOL_PREFIX
from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import WireError

_FALLBACK_POINT = f"{ToolInvokedContext.operation}.pre"
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
        return read_tool_result(send.tool, result)

    async def aclose(self) -> None:
        """Close the session and stop a stdio server."""
        await self.connection.aclose()


def read_tool_result(tool: str, result: CallToolResult) -> Got:
    """Name tool ``tool``'s result as the harness reads a hook reply (or an error result).

    The reply is read at the point ``tool`` serves; a tool that serves none has its result
    read as a ``tool.invoked.pre`` reply.
    """
    if result.is_error:
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return Got("error", short("isError result: " + " ".join(texts)))
    point = tool.removeprefix(TOOL_PREFIX)
    try:
        out = read_hook_result(point if point in points() else _FALLBACK_POINT, result)
    except HookAbort as abort:
        return aborted(abort)
    except (ReplyError, WireError, ValueError) as error:  # ValueError: a text block not JSON
        return Got("invalid", short(f"the harness cannot read it: {error}"))
    return replaced(None, out)
