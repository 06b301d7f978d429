"""A zoo of hook executors with one defect each, over JSON-RPC and MCP (issue 28).

Each member is the real server helper (:class:`JsonRpcDispatcher`, :class:`HookTools`:
probes answered by the conformance profile) with one thing spoiled: a reply rewritten
after the helper made it (:data:`SPOILERS`), or the request's signature checked wrongly
(:data:`VERIFIERS`). The conformance kit must fail every member with a message naming
its defect (``tests/examples/test_conformance_zoo.py``).

A reply is spoiled in one neutral shape: ``{"context": ...}`` or ``{"abort": {...}}``,
which is the MCP reply itself and, over JSON-RPC, ``{"context": result}`` or the
``data`` of error ``-32001``. JSON-RPC members are served in-process (:func:`jsonrpc_app`);
MCP members run as this file: ``python tests/support/zoo.py DEFECT`` serves stdio, so it
imports only the installed ``harness`` package.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harness.hooks.remote.signing import (
    DEFAULT_TOLERANCE,
    ID_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    SignatureError,
    Verifier,
)
from harness.hooks.remote.wire import ABORT, SCHEMA_HEADER

if TYPE_CHECKING:  # an MCP member (a process per test) loads neither: ~0.3 s each
    from aiohttp import web

Reply = dict[str, Any]


def _context(reply: Reply, change: Callable[[dict[str, Any]], None]) -> Reply:
    if isinstance(reply.get("context"), dict):
        change(reply["context"])
    return reply


def _abort(reply: Reply, change: Callable[[dict[str, Any]], None]) -> Reply:
    if isinstance(reply.get("abort"), dict):
        change(reply["abort"])
    return reply


def _ints_as_strings(ctx: dict[str, Any]) -> None:
    for key, value in ctx.items():
        if isinstance(value, int) and not isinstance(value, bool):
            ctx[key] = str(value)  # attempt: "1", lost_workers: "0"


def _refusal_as_string(abort: dict[str, Any]) -> None:
    abort["refusal"] = "true" if abort.get("refusal") else "false"


def _ask_without_timeout(abort: dict[str, Any]) -> None:
    if abort.get("ask"):
        abort.pop("timeout_seconds", None)


def _ask_beside_abort(reply: Reply) -> Reply:
    abort = reply.get("abort")
    if isinstance(abort, dict) and abort.get("ask"):
        reply["ask"] = abort.pop("ask")  # beside the abort object, not in it
        reply["timeout_seconds"] = abort.pop("timeout_seconds", 0)
    return reply


SPOILERS: dict[str, Callable[[Reply], Reply]] = {
    "rewrites-attempt": lambda r: _context(r, lambda c: c.update(attempt=c["attempt"] + 1)),
    "rewrites-idempotency-key": lambda r: _context(
        r, lambda c: c.update(idempotency_key="forged-key")
    ),
    "rewrites-task": lambda r: _context(r, lambda c: c.update(task={"task_id": "another-task"})),
    "ints-as-strings": lambda r: _context(r, _ints_as_strings),
    "refusal-as-string": lambda r: _abort(r, _refusal_as_string),
    "ask-without-timeout": lambda r: _abort(r, _ask_without_timeout),
    "ask-wrong-shape": _ask_beside_abort,
}
"""Reply defects: the same over both transports."""


def _wrong_key(secret: str) -> Callable[[dict[str, str], bytes], str | None]:
    key = secret.encode()  # the text after all, not the base64-decoded bytes

    def verify(headers: dict[str, str], body: bytes) -> str | None:
        content = f"{headers.get(ID_HEADER)}.{headers.get(TIMESTAMP_HEADER)}.".encode()
        expected = base64.b64encode(hmac.digest(key, content + body, hashlib.sha256)).decode()
        given = headers.get(SIGNATURE_HEADER, "").split()
        return None if f"v1,{expected}" in given else "mismatch"

    return verify


def _checked(verifier: Verifier) -> Callable[[dict[str, str], bytes], str | None]:
    def verify(headers: dict[str, str], body: bytes) -> str | None:
        try:
            verifier.verify(headers, body)
        except SignatureError as error:
            return error.problem
        return None

    return verify


def _headers_and_time(secret: str) -> Callable[[dict[str, str], bytes], str | None]:
    def verify(headers: dict[str, str], body: bytes) -> str | None:
        if not all(headers.get(name) for name in (ID_HEADER, TIMESTAMP_HEADER, SIGNATURE_HEADER)):
            return "unsigned"
        if abs(time.time() - int(headers[TIMESTAMP_HEADER])) > DEFAULT_TOLERANCE:
            return "stale"
        return None  # the signature's value is never compared with anything

    return verify


VERIFIERS: dict[str, Callable[[str], Callable[[dict[str, str], bytes], str | None]]] = {
    "verifies-nothing": lambda secret: lambda headers, body: None,
    "verifies-wrong-key": _wrong_key,
    "ignores-timestamp": lambda secret: _checked(Verifier([secret], tolerance=10**9)),
    "ignores-signature-value": _headers_and_time,
}
"""Signature defects (JSON-RPC only: the harness signs no MCP call): given the secret,
a check returning the problem, or ``None`` to serve the request."""


def _neutral(reply: Reply) -> Reply | None:
    if "result" in reply:
        return {"context": reply["result"]}
    error = reply.get("error")
    if (
        isinstance(error, dict)
        and error.get("code") == ABORT
        and isinstance(error.get("data"), dict)
    ):
        return error["data"]
    return None


def _back(reply: Reply, neutral: Reply) -> Reply:
    if "result" in reply:
        reply["result"] = neutral["context"]
    else:
        reply["error"]["data"] = neutral
    return reply


def jsonrpc_app(defect: str, secret: str | None = None) -> web.Application:
    """A JSON-RPC executor at ``/hooks`` with ``defect`` (signature defects need ``secret``)."""
    from aiohttp import web

    from harness.hook_server.jsonrpc import JsonRpcDispatcher

    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": lambda ctx: None})
    spoil = SPOILERS.get(defect, lambda reply: reply)
    check = VERIFIERS[defect](secret) if defect in VERIFIERS and secret else None
    if check is None and secret:
        check = _checked(Verifier([secret]))

    async def handle(request: web.Request) -> web.Response:
        body = await request.read()
        headers = {name.lower(): value for name, value in request.headers.items()}
        if check is not None and (problem := check(headers, body)) is not None:
            return web.json_response({"error": "unauthorized", "problem": problem}, status=401)
        out = await dispatcher.dispatch(body, schema_version=request.headers.get(SCHEMA_HEADER))
        if out is None:
            return web.Response(status=204)
        reply = json.loads(out)
        if isinstance(reply, dict) and (neutral := _neutral(reply)) is not None:
            reply = _back(reply, spoil(neutral))
        return web.json_response(reply)

    app = web.Application()
    app.router.add_post("/hooks", handle)
    return app


def serve_mcp(defect: str) -> None:
    """Serve the MCP member with ``defect`` over stdio until stdin closes."""
    import anyio
    from mcp.server import Server
    from mcp_types import CallToolResult, TextContent

    from harness.hook_server.mcp import HookTools, serve_stdio

    tools = HookTools({"tool.invoked.pre": lambda ctx: None})
    spoil = SPOILERS[defect]

    async def call_tool(request: Any, params: Any) -> CallToolResult:
        result = await tools.call_tool(request, params)
        if result.is_error or not isinstance(result.structured_content, dict):
            return result
        reply = spoil(dict(result.structured_content))
        return CallToolResult(
            content=[TextContent(text=json.dumps(reply))], structured_content=reply
        )

    server = Server("zoo", on_list_tools=tools.list_tools, on_call_tool=call_tool)
    anyio.run(serve_stdio, server)


if __name__ == "__main__":
    serve_mcp(sys.argv[1])
