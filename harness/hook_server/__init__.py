"""The hook-server side: what a third party imports to write a remote executor, and the kit
that checks one.

The engine (:mod:`harness.hooks`) calls remote executors; this room serves them: plain
functions keyed by hook point become a JSON-RPC app (:mod:`.jsonrpc`, on aiohttp) or an
MCP server (:mod:`.mcp`, on the MCP SDK), both answering the conformance kit's probes by
:mod:`.profile`; :mod:`.conformance` is the kit itself (``python -m harness.hooks
conformance``). It imports the engine's contexts and wire; the engine imports nothing of
it (an import-linter contract). Names load on first use, so a JSON-RPC server never loads
the MCP SDK, nor an MCP server aiohttp.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.hook_server.jsonrpc import JsonRpcDispatcher, jsonrpc_app
    from harness.hook_server.mcp import (
        HookTools,
        hook_server,
        serve_from_command_line,
        serve_http,
        serve_stdio,
    )

_LAZY = {
    "JsonRpcDispatcher": "harness.hook_server.jsonrpc",
    "jsonrpc_app": "harness.hook_server.jsonrpc",
    "HookTools": "harness.hook_server.mcp",
    "hook_server": "harness.hook_server.mcp",
    "serve_from_command_line": "harness.hook_server.mcp",
    "serve_http": "harness.hook_server.mcp",
    "serve_stdio": "harness.hook_server.mcp",
}


def __getattr__(name: str) -> Any:  # noqa: ANN401  # module attribute protocol
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "HookTools",
    "JsonRpcDispatcher",
    "hook_server",
    "jsonrpc_app",
    "serve_from_command_line",
    "serve_http",
    "serve_stdio",
]
