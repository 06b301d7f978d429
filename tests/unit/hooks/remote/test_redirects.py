"""Remote executors never follow redirects: a 3xx is a transport error naming status, endpoint."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from harness.domain import ToolCall
from harness.hooks import HookTransportError, JsonRpcExecutor, McpExecutor
from harness.hooks.contexts import ToolInvokedContext
from harness.http import AiohttpClient, HttpxClient


@dataclass
class Redirecting:
    """A server whose ``/hooks`` answers ``status`` to ``/landing`` (same origin), which records."""

    base: str = ""
    landed: list[bytes] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.base + "/hooks"


async def serve(status: int) -> AsyncIterator[Redirecting]:
    served = Redirecting()

    async def redirect(request: web.Request) -> web.Response:
        await request.read()
        return web.Response(status=status, headers={"Location": served.base + "/landing"})

    async def landing(request: web.Request) -> web.Response:
        served.landed.append(await request.read())
        return web.json_response({"jsonrpc": "2.0", "id": 1, "result": None})

    app = web.Application()
    app.router.add_route("*", "/hooks", redirect)
    app.router.add_route("*", "/landing", landing)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    served.base = f"http://127.0.0.1:{runner.addresses[0][1]}"
    try:
        yield served
    finally:
        await runner.cleanup()


@pytest.fixture(params=[301, 302, 307, 308], ids=lambda s: f"HTTP{s}")
async def redirecting(request) -> AsyncIterator[Redirecting]:
    async for served in serve(request.param):
        yield served


def ctx() -> ToolInvokedContext:
    return ToolInvokedContext(call=ToolCall(id="c1", name="search", arguments={"q": "secret plan"}))


@pytest.mark.parametrize("http", [AiohttpClient, HttpxClient], ids=["aiohttp", "httpx"])
async def test_jsonrpc_does_not_follow_a_redirect(redirecting, http):
    executor = JsonRpcExecutor(redirecting.url, point="tool.invoked.pre", http=http())
    try:
        with pytest.raises(HookTransportError) as caught:
            await executor(ctx())
    finally:
        await executor.aclose()
        await executor._http.aclose()
    assert caught.value.cause.startswith("HTTP 3")
    assert "redirect" in caught.value.cause and "do not follow" in caught.value.cause
    assert caught.value.endpoint == redirecting.url
    assert redirecting.landed == []  # the context never reached the second address


async def test_mcp_does_not_follow_even_a_same_origin_redirect():
    async for served in serve(307):  # the MCP SDK follows same-origin 307s by itself
        async with McpExecutor(served.url, point="tool.invoked.pre") as executor:
            with pytest.raises(HookTransportError) as caught:
                await executor(ctx())
        assert caught.value.endpoint == served.url
        assert "HTTP 307 redirect" in caught.value.cause and "do not follow" in caught.value.cause
        assert served.landed == []
