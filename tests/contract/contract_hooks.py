"""The hook function every executor in the contract suite serves, and its MCP server.

Imported by the suite (in-memory and JSON-RPC serve it in-process) and run as a
script for MCP (``python contract_hooks.py`` serves it over stdio), so it imports
only the installed ``harness`` package.
"""

from __future__ import annotations

import asyncio

from harness.hook_server import serve_from_command_line
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext

POINT = "tool.invoked.pre"
SECRET = "xoxb-123456789012-abcdefghijkl"
PAUSE = 0.5


async def contract_hook(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """Behave as the call's name says: pass, rewrite, veto, abort, ask, slow, pause, invalid, crash.

    (``pause`` passes after :data:`PAUSE` seconds.)
    """
    name = ctx.call.name
    if name == "rewrite":
        arguments = {**ctx.call.arguments, "max_results": 5, "note": "capped"}
        call = ctx.call.model_copy(update={"arguments": arguments})
        return ctx.model_copy(update={"call": call, "entities": {**ctx.entities, "policy": "v2"}})
    if name == "veto":
        raise HookAbort(f"no shell for you ({SECRET})", refusal=True)
    if name == "abort":
        raise HookAbort("budget exhausted")
    if name == "ask":
        raise HookAbort("a person must approve this search", ask=True, timeout_seconds=45)
    if name == "slow":
        await asyncio.sleep(5)
    if name == "pause":  # passes after PAUSE seconds: two at once take one pause, not two
        await asyncio.sleep(PAUSE)
    if name == "invalid":
        return ctx.model_copy(update={"attempt": 0})  # unvalidated: attempt must be >= 1
    if name == "crash":
        raise RuntimeError(f"database refused token {SECRET}")
    return None


HOOKS = {POINT: contract_hook}

if __name__ == "__main__":
    serve_from_command_line(HOOKS, name="contract-hooks")
