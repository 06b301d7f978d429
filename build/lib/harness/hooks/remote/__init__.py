"""Remote executors: hook points served by another process over JSON-RPC 2.0 or MCP."""

from __future__ import annotations

from harness.hooks.remote.jsonrpc import JsonRpcExecutor
from harness.hooks.remote.jsonrpc_server import JsonRpcDispatcher, jsonrpc_app
from harness.hooks.remote.mcp import McpExecutor
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.mcp_server import (
    HookTools,
    hook_server,
    serve_from_command_line,
    serve_http,
    serve_stdio,
)
from harness.hooks.remote.signing import SignatureError, Signer, Verifier, sign

__all__ = [
    "HookTools",
    "JsonRpcDispatcher",
    "JsonRpcExecutor",
    "McpConnection",
    "McpExecutor",
    "SignatureError",
    "Signer",
    "Verifier",
    "hook_server",
    "jsonrpc_app",
    "serve_from_command_line",
    "serve_http",
    "serve_stdio",
    "sign",
]
