"""A real MCP hook server for tests/unit/hooks/remote/test_mcp.py, run over stdio.

``tool.invoked.pre`` is served through :class:`HookTools` and behaves by the tool
call's name; ``llm.invoked.pre`` is a raw tool that breaks the reply encoding in the
way the context's ``model`` names. It is a script (spawned by the tests), so it
imports only the installed ``harness`` package.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server

from harness.hook_server import HookTools, serve_stdio
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext


async def behave(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """Pass, rewrite, veto, fail, hang or exit (now or after replying), as the call's name says."""
    name = ctx.call.name
    if name == "pass":
        return None
    if name in ("rewrite", "pid"):
        value = os.getpid() if name == "pid" else ctx.call.arguments["path"].upper()
        call = ctx.call.model_copy(update={"arguments": {**ctx.call.arguments, "out": value}})
        return ctx.model_copy(update={"call": call})
    if name == "veto":
        raise HookAbort("deleting is not allowed", refusal=True)
    if name == "abort":
        raise HookAbort("out of budget")
    if name == "crash":
        raise RuntimeError(f"backend said {ctx.call.arguments.get('detail', '')}")
    if name == "invalid":
        return ctx.model_copy(update={"attempt": 0})  # unvalidated copy: attempt must be >= 1
    if name == "slow":
        await anyio.sleep(30)
    if name == "exit":
        os._exit(3)  # the process dies with the call in flight
    if name == "exit-later":
        asyncio.get_running_loop().call_later(0.05, os._exit, 4)  # dies between calls
    return None


HOOKS = HookTools({"tool.invoked.pre": behave})
RAW = "hooks.llm.invoked.pre"

MALFORMED: dict[str, types.CallToolResult] = {
    "not-json": types.CallToolResult(content=[types.TextContent(text="OK, hook received")]),
    "both": types.CallToolResult(
        content=[], structured_content={"context": None, "abort": {"reason": "x"}}
    ),
    "neither": types.CallToolResult(content=[], structured_content={"verdict": "fine"}),
    "empty": types.CallToolResult(content=[]),
    "two-blocks": types.CallToolResult(
        content=[types.TextContent(text='{"context": null}'), types.TextContent(text="{}")]
    ),
    "text-null": types.CallToolResult(content=[types.TextContent(text='{"context": null}')]),
}


async def list_tools(request: Any, params: types.PaginatedRequestParams | None):
    listed = await HOOKS.list_tools(request, params)
    raw = types.Tool(name=RAW, input_schema={"type": "object"})
    return types.ListToolsResult(tools=[*listed.tools, raw])


async def call_tool(request: Any, params: types.CallToolRequestParams):
    if params.name == RAW:
        return MALFORMED[(params.arguments or {})["context"]["model"]]
    return await HOOKS.call_tool(request, params)


if __name__ == "__main__":
    server = Server("test-hooks", on_list_tools=list_tools, on_call_tool=call_tool)
    anyio.run(serve_stdio, server)
