"""Real servers on 127.0.0.1 for the remote executor tests: one well-behaved, one that is not.

``rpc_server`` runs :func:`jsonrpc_app` with a small policy; ``bad_server`` is an
aiohttp app whose routes each break the contract one way (hang, drip, hang up,
HTML 500, recorded bad replies from ``tests/fixtures/jsonrpc``). Both record the
peer address of every request, so tests can count connections.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from aiohttp import web

from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import HookAbort
from harness.hooks.contexts import LlmInvokedContext, ToolInvokedContext

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "jsonrpc"
LEAKED_TOKEN = "xoxb-555555555555-5555555555555-LeakedLeakedLeakedLeaked"
"""What ``/secret-500`` puts in its error page: a token shape the default redactor knows."""
OVERSIZE = 2 << 20  # bytes the oversize routes send, above the 1 MiB default cap


@dataclass
class Served:
    """A running server: its base URL, and what it has seen."""

    base: str
    peers: list[tuple[str, int]] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)

    def url(self, path: str = "/") -> str:
        return self.base + path

    def connections_since(self, mark: int) -> int:
        """Distinct client connections (peer ports) among requests after ``mark``."""
        return len(set(self.peers[mark:]))


async def _serve(app: web.Application, served: Served) -> AsyncIterator[Served]:
    @web.middleware
    async def record(request: web.Request, handler):
        served.peers.append(request.transport.get_extra_info("peername")[:2])
        return await handler(request)

    app.middlewares.append(record)
    # handler_cancellation: a hung handler goes away when the client gives up on it.
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    served.base = f"http://127.0.0.1:{port}"
    try:
        yield served
    finally:
        await runner.cleanup()


def policy(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """Veto ``shell`` with ``rm -rf``; cap ``search``'s ``max_results`` at 5; pass the rest."""
    args = ctx.call.arguments
    if ctx.call.name == "shell" and "rm -rf" in str(args.get("command", "")):
        raise HookAbort("rm -rf is not allowed", refusal=True)
    if ctx.call.name == "search":
        call = ctx.call.model_copy(update={"arguments": {**args, "max_results": 5}})
        return ctx.model_copy(update={"call": call})
    return None


async def broken(ctx: LlmInvokedContext) -> None:
    raise RuntimeError("model registry offline")


@pytest.fixture(scope="module")
async def rpc_server() -> AsyncIterator[Served]:
    app = jsonrpc_app({"tool.invoked.pre": policy, "llm.invoked.pre": broken}, path="/rpc")
    async for served in _serve(app, Served(base="")):
        yield served


def _bad_app(served: Served) -> web.Application:
    async def request_id(request: web.Request) -> object:
        body = await request.read()
        served.bodies.append(body)
        return json.loads(body)["id"]

    async def recorded(request: web.Request) -> web.Response:
        rid = await request_id(request)
        reply = json.loads((FIXTURES / f"{request.match_info['name']}.json").read_text())
        if reply.get("id") == "$id":
            reply["id"] = rid
        return web.json_response(reply)

    async def echo_null(request: web.Request) -> web.Response:
        rid = await request_id(request)
        return web.json_response({"jsonrpc": "2.0", "id": rid, "result": None})

    async def id_mismatch(request: web.Request) -> web.Response:
        rid = await request_id(request)
        return web.json_response({"jsonrpc": "2.0", "id": f"{rid}-other", "result": None})

    async def hang(request: web.Request) -> web.Response:
        await asyncio.sleep(30)
        return web.Response()

    async def drip(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()
        resp.content_length = 200
        await resp.prepare(request)
        for _ in range(200):  # one byte every 50 ms: 10 s in all, far past any test deadline
            await resp.write(b" ")
            await asyncio.sleep(0.05)
        return resp

    async def close_mid_body(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()
        resp.content_length = 500
        await resp.prepare(request)
        await resp.write(b'{"jsonrpc": "2.0", "id": 1, "result": {"ca')
        await asyncio.sleep(0.05)
        request.transport.close()
        return resp

    async def reset(request: web.Request) -> web.Response:
        sock = request.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        request.transport.abort()  # with linger 0 the kernel answers with RST
        return web.Response()

    async def html_500(request: web.Request) -> web.Response:
        page = (FIXTURES / "error_500.html").read_text()
        return web.Response(status=500, text=page, content_type="text/html")

    async def secret_500(request: web.Request) -> web.Response:
        return web.Response(status=500, text=f"upstream said: bad key {LEAKED_TOKEN}")

    async def not_json(request: web.Request) -> web.Response:
        return web.Response(text="OK, hook received", content_type="text/plain")

    async def oversize(request: web.Request) -> web.Response:
        rid = await request_id(request)
        reply = {"jsonrpc": "2.0", "id": rid, "result": None, "padding": "x" * OVERSIZE}
        return web.json_response(reply)

    async def oversize_chunked(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for _ in range(OVERSIZE // 65536):
            await resp.write(b" " * 65536)
        return resp

    app = web.Application()
    for path, handler in {
        "/recorded/{name}": recorded,
        "/echo-null": echo_null,
        "/id-mismatch": id_mismatch,
        "/hang": hang,
        "/drip": drip,
        "/close-mid-body": close_mid_body,
        "/reset": reset,
        "/html-500": html_500,
        "/secret-500": secret_500,
        "/not-json": not_json,
        "/oversize": oversize,
        "/oversize-chunked": oversize_chunked,
    }.items():
        app.router.add_post(path, handler)
    return app


@pytest.fixture(scope="module")
async def bad_server() -> AsyncIterator[Served]:
    served = Served(base="")
    async for running in _serve(_bad_app(served), served):
        yield running


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nobody listens on: the port was bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/rpc"
