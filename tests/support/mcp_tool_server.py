"""A real MCP tool server (stdio) for the MCP tool tests; spawned as a process.

Tools: ``add`` (structured output), ``shout`` (text), ``fail`` (an error result),
``pid`` (which process answered), ``sleep`` (for timeouts). ``--gate PATH``: exit at
once (a server that cannot start) while ``PATH`` does not exist.
"""

from __future__ import annotations

import os
import sys

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("test-tools")


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Upper-case the text.")
def shout(text: str) -> str:
    return text.upper() + "!"


@server.tool(description="Always fails.")
def fail(reason: str = "broken") -> str:
    raise ToolError(f"tool failed: {reason}")  # the SDK hides other exceptions' text


@server.tool(description="The server's process id.")
def pid() -> str:
    return str(os.getpid())


@server.tool(description="Sleep, then answer.")
async def sleep(seconds: float) -> str:
    await anyio.sleep(seconds)
    return "awake"


if __name__ == "__main__":
    if "--gate" in sys.argv and not os.path.exists(sys.argv[sys.argv.index("--gate") + 1]):
        raise SystemExit(3)
    server.run("stdio")
