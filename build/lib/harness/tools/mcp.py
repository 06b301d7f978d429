"""Tools served by configured MCP servers: `tools/list` gives ToolSpecs, `tools/call` a ToolResult.

Each server is reached through one shared :class:`~harness.hooks.remote.McpConnection`
(stdio process or streamable HTTP), the same session machinery the MCP hook executors
use. Tools are offered to the model as ``<server>__<tool>`` (the vendors' tool-name
alphabet has no dots) so two servers' tools never collide. This module is the
boundary where MCP SDK errors are mapped: a server's error answer becomes a
:class:`~harness.tools.errors.ToolError` (the model is told), anything else
:class:`~harness.tools.errors.ToolUnavailable` (the operation is retried).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, final

from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from harness.domain import ToolResult, ToolSpec
from harness.hooks.remote.mcp_connection import McpConnection
from harness.tools.errors import ToolError, ToolUnavailable

SEPARATOR: Final = "__"
DEFAULT_CALL_TIMEOUT: Final = 60.0


@final
class McpTool:
    """One tool of one MCP server, as a :class:`~harness.tools.base.Tool`.

    Args:
        server: the configured server name (the exposed name's prefix).
        remote_name: the tool's name on the server.
        spec: the spec offered to the model (``<server>__<remote_name>``).
        connection: the server's shared session.
        timeout: seconds a call may take, connecting included.
        requires_approval: ask a person before each call.
    """

    def __init__(
        self,
        *,
        server: str,
        remote_name: str,
        spec: ToolSpec,
        connection: McpConnection,
        timeout: float = DEFAULT_CALL_TIMEOUT,
        requires_approval: bool = False,
    ) -> None:
        self.server = server
        self.remote_name = remote_name
        self.spec = spec
        self.requires_approval = requires_approval
        self.safe = False  # a server's own read-only hint is its word, not ours to trust
        self._connection = connection
        self._timeout = timeout

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Call the tool on its server.

        Raises:
            ToolError: the server answered with a protocol error (unknown tool, bad
                arguments).
            ToolUnavailable: the server could not be reached or did not answer in time.
        """
        try:
            async with asyncio.timeout(self._timeout):
                result = await self._connection.call_tool(
                    self.remote_name, arguments, timeout=self._timeout
                )
        except MCPError as error:
            raise ToolError(tool=self.spec.name, detail=f"server said: {error}") from error
        except TimeoutError as error:
            raise ToolUnavailable(
                tool=self.spec.name, detail=f"no answer within {self._timeout:g}s"
            ) from error
        except Exception as error:  # the SDK's transport and spawn errors, mapped here only
            raise ToolUnavailable(
                tool=self.spec.name, detail=f"{type(error).__name__}: {error}"
            ) from error
        return tool_result(result)


def tool_result(result: CallToolResult) -> ToolResult:
    """The text of an MCP tool result (structured content as JSON when there is no text)."""
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if not texts and result.structured_content is not None:
        texts = [json.dumps(result.structured_content)]
    skipped = len(result.content) - sum(isinstance(b, TextContent) for b in result.content)
    if skipped:
        texts.append(f"[{skipped} non-text content block(s) omitted]")
    return ToolResult(content="\n".join(texts), is_error=bool(result.is_error))


@final
class McpToolServer:
    """A configured MCP server and the tools it offers.

    Args:
        name: the server's configured name; must be a valid tool-name prefix.
        target: an http(s) URL, or a stdio command line as a list.
        timeout: per-call timeout of its tools.
        approval: names of its tools (remote names) that need a person's approval.
        env: extra environment variables of a stdio server.
    """

    def __init__(
        self,
        name: str,
        target: str | Sequence[str],
        *,
        timeout: float = DEFAULT_CALL_TIMEOUT,
        approval: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not name.replace("_", "").replace("-", "").isalnum() or SEPARATOR in name:
            raise ValueError(f"MCP tool server name {name!r}: letters, digits, - and single _")
        self.name = name
        self.connection = McpConnection(target, env=env)
        self._timeout = timeout
        self._approval = frozenset(approval)

    async def tools(self) -> list[McpTool]:
        """List the server's tools now (opening the session if needed).

        Raises:
            ToolUnavailable: the server could not be reached or listed no tools.
        """
        try:
            listed = await self.connection.list_tools()
        except Exception as error:  # the SDK's errors, mapped at this boundary
            raise ToolUnavailable(
                tool=f"{self.name}{SEPARATOR}*", detail=f"{type(error).__name__}: {error}"
            ) from error
        return [
            McpTool(
                server=self.name,
                remote_name=tool.name,
                spec=ToolSpec(
                    name=f"{self.name}{SEPARATOR}{tool.name}",
                    description=tool.description or "",
                    parameters=dict(tool.input_schema),
                ),
                connection=self.connection,
                timeout=self._timeout,
                requires_approval=tool.name in self._approval,
            )
            for tool in listed
        ]

    async def aclose(self) -> None:
        """Close the session (and stop a stdio server)."""
        await self.connection.aclose()
