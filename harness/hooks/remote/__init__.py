"""Remote executors: hook points served by another process over JSON-RPC 2.0 or MCP.

The calling side only; the serving side (server helpers, conformance kit) is
:mod:`harness.hook_server`. Each transport loads on first use: importing
:class:`JsonRpcExecutor` loads no MCP SDK, importing this package loads neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.hooks.remote.signing import SignatureError, Signer, Verifier, sign

if TYPE_CHECKING:
    from harness.hooks.remote.jsonrpc import JsonRpcExecutor
    from harness.hooks.remote.mcp import McpExecutor
    from harness.hooks.remote.mcp_connection import McpConnection

_LAZY = {
    "JsonRpcExecutor": "harness.hooks.remote.jsonrpc",
    "McpExecutor": "harness.hooks.remote.mcp",
    "McpConnection": "harness.hooks.remote.mcp_connection",
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
    "JsonRpcExecutor",
    "McpConnection",
    "McpExecutor",
    "SignatureError",
    "Signer",
    "Verifier",
    "sign",
]
