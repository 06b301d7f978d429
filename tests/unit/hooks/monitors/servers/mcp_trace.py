"""A real MCP hook server for tests/unit/hooks/monitors/test_decision_spans.py, over stdio.

``hooks.tool.invoked.pre`` rewrites the call, putting the ``_meta`` of the request it got
into ``call.arguments["meta"]``: the test reads back what a third party's server receives.
It is a script (spawned by the tests), so it imports only the installed packages.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

from harness.hook_server import HookTools, serve_stdio
from harness.hooks.remote.reply import dumps

HOOKS = HookTools({"tool.invoked.pre": lambda ctx: None})


async def call_tool(request: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    context = dict((params.arguments or {})["context"])
    meta = {k: v for k, v in dict(params.meta or {}).items() if isinstance(v, str)}
    context["call"] = {
        **context["call"],
        "arguments": {**context["call"]["arguments"], "meta": meta},
    }
    payload = {"context": context}
    return types.CallToolResult(
        content=[types.TextContent(text=dumps(payload))], structured_content=payload
    )


if __name__ == "__main__":
    server = Server("trace-hooks", on_list_tools=HOOKS.list_tools, on_call_tool=call_tool)
    anyio.run(serve_stdio, server)
