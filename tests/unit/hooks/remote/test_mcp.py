"""McpExecutor against real MCP server processes: a test server over stdio, the example over HTTP.

One stdio server process serves most tests (a process start costs more than all the
calls together); tests that kill or close a server get their own.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from harness.domain import Message, ToolCall
from harness.hooks import HookAbort, HookManager, HookTransportError, UnknownHookPointError
from harness.hooks.contexts import LlmInvokedContext, ToolInvokedContext
from harness.hooks.remote import McpConnection, McpExecutor
from harness.hooks.remote.schema_version import SCHEMA_META_KEY

ROOT = Path(__file__).resolve().parents[4]
SERVER = [sys.executable, str(Path(__file__).with_name("servers") / "mcp_hooks.py")]


def call(name: str, **arguments: object) -> ToolInvokedContext:
    return ToolInvokedContext(
        correlation_id="corr-1", call=ToolCall(id="c1", name=name, arguments=arguments)
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_is_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.fixture(scope="module")
async def connection() -> AsyncIterator[McpConnection]:
    conn = McpConnection(SERVER)
    yield conn
    await conn.aclose()


@pytest.fixture
def pre(connection: McpConnection) -> McpExecutor:
    return McpExecutor(connection, point="tool.invoked.pre")


async def pid_of(executor: McpExecutor) -> int:
    out = await executor(call("pid"))
    assert isinstance(out, ToolInvokedContext)
    return int(out.call.arguments["out"])


# --- success ---------------------------------------------------------------------------


async def test_null_reply_passes_through(pre):
    assert await pre(call("pass", path="/tmp")) is None


async def test_replacement_comes_back_as_the_points_context(pre):
    out = await pre(call("rewrite", path="/etc"))
    assert isinstance(out, ToolInvokedContext)
    assert out.call.arguments == {"path": "/etc", "out": "/ETC"}
    assert out.correlation_id == "corr-1"


async def test_consecutive_and_concurrent_calls_share_one_server_process(pre):
    pids = await asyncio.gather(*(pid_of(pre) for _ in range(8)))
    assert len(set(pids)) == 1
    assert await pid_of(pre) == pids[0]


async def test_executors_at_other_points_share_the_connection(connection):
    pre = McpExecutor(connection, point="tool.invoked.pre")
    other = McpExecutor(connection, point="tool.invoked.pre", timeout=2)
    assert await pid_of(pre) == await pid_of(other)
    await other.aclose()  # a shared connection stays open
    assert await pre(call("pass")) is None


async def test_refusal_reply_becomes_hook_abort(pre):
    with pytest.raises(HookAbort) as caught:
        await pre(call("veto"))
    assert caught.value.reason == "deleting is not allowed"
    assert caught.value.refusal is True


async def test_abort_reply_surfaces_through_the_manager_and_is_recorded(pre):
    manager = HookManager()
    manager.register("tool.invoked.pre", pre)
    with pytest.raises(HookAbort) as caught:
        await manager.run("tool.invoked", call("abort"))
    assert caught.value.refusal is False
    assert caught.value.point == "tool.invoked.pre"
    record = manager.aborts[-1]
    assert (record.reason, record.executor, record.correlation_id) == (
        "out of budget",
        pre.name,
        "corr-1",
    )


# --- failures --------------------------------------------------------------------------


async def test_missing_tool_is_a_transport_error(connection):
    post = McpExecutor(connection, point="tool.invoked.post")
    with pytest.raises(HookTransportError) as caught:
        await post(call("pass"))
    assert "hooks.tool.invoked.post" in caught.value.cause
    assert caught.value.point == "tool.invoked.post"


async def test_is_error_result_is_a_transport_error_with_a_redacted_cause(pre):
    secret = "xoxb-123456789012-abcdefghijkl"
    with pytest.raises(HookTransportError) as caught:
        await pre(call("crash", detail=f"token {secret}"))
    assert "RuntimeError: backend said token" in caught.value.cause
    assert secret not in str(caught.value)
    assert "[REDACTED]" in caught.value.cause


@pytest.mark.parametrize("kind", ["not-json", "both", "neither", "empty", "two-blocks"])
async def test_malformed_content_is_a_transport_error(connection, kind):
    raw = McpExecutor(connection, point="llm.invoked.pre")
    ctx = LlmInvokedContext(model=kind, messages=(Message(role="user", content="hi"),))
    with pytest.raises(HookTransportError):
        await raw(ctx)


async def test_a_single_json_text_block_is_read_when_there_is_no_structured_content(connection):
    raw = McpExecutor(connection, point="llm.invoked.pre")
    ctx = LlmInvokedContext(model="text-null", messages=())
    assert await raw(ctx) is None


async def test_reply_that_is_not_a_valid_context_is_a_transport_error(pre):
    with pytest.raises(HookTransportError) as caught:
        await pre(call("invalid"))
    assert "attempt" in caught.value.cause


async def test_context_of_another_point_is_refused_before_anything_is_sent(pre):
    with pytest.raises(HookTransportError) as caught:
        await pre(LlmInvokedContext(model="m", messages=()))
    assert "LlmInvokedContext" in caught.value.cause


async def test_timeout_fails_the_call_and_keeps_the_session(connection):
    before = await pid_of(McpExecutor(connection, point="tool.invoked.pre"))
    hasty = McpExecutor(connection, point="tool.invoked.pre", timeout=0.3)
    started = time.monotonic()
    with pytest.raises(HookTransportError) as caught:
        await hasty(call("slow"))
    assert time.monotonic() - started < 1.5
    assert "time" in caught.value.cause.lower()
    assert await pid_of(hasty) == before


async def test_a_request_the_stdio_server_refuses_as_invalid_keeps_its_process(connection):
    """-32600 over stdio is the server refusing one call (here: another schema version in
    ``_meta``), not a lost session as over HTTP: no new process for the next call."""
    before = await pid_of(McpExecutor(connection, point="tool.invoked.pre"))
    with pytest.raises(MCPError) as caught:
        await connection.call_tool(
            "hooks.tool.invoked.pre",
            {"context": call("pass").model_dump(mode="json")},
            meta={SCHEMA_META_KEY: "v999"},
        )
    assert caught.value.error.code == INVALID_REQUEST
    assert await pid_of(McpExecutor(connection, point="tool.invoked.pre")) == before


async def test_session_outlives_a_connect_timeout_and_respawns_after_the_server_dies():
    # One server lifecycle in one test: each process start costs most of a second.
    connection = McpConnection(SERVER)
    executor = McpExecutor(connection, point="tool.invoked.pre", timeout=20)
    # A caller that gives up during the handshake does not break it for the next ones.
    with pytest.raises(HookTransportError):
        await McpExecutor(connection, point="tool.invoked.pre", timeout=0.05)(call("pass"))
    first = await pid_of(executor)

    started = time.monotonic()
    with pytest.raises(HookTransportError) as caught:
        await executor(call("exit"))
    assert time.monotonic() - started < 3  # noticed the exit, not the 20 s deadline
    assert "closed" in caught.value.cause.lower()
    second = await pid_of(executor)  # the next call spawns a new server
    assert second != first

    assert await executor(call("exit-later")) is None
    await asyncio.sleep(0.3)  # the server exits while no call is in flight
    third = await pid_of(executor)  # noticed: a new server, not a failed call
    assert third not in (first, second)

    await connection.aclose()
    assert all(process_is_gone(pid) for pid in (first, second, third))


async def test_unspawnable_server_is_a_transport_error():
    executor = McpExecutor(["/nonexistent/hook-server"], point="tool.invoked.pre")
    with pytest.raises(HookTransportError) as caught:
        await executor(call("pass"))
    assert "/nonexistent/hook-server" in caught.value.endpoint
    await executor.aclose()


async def test_http_500_is_a_transport_error():
    async def fail(request: web.Request) -> web.Response:
        return web.Response(status=500, text="<html>upstream down</html>", content_type="text/html")

    app = web.Application()
    app.router.add_route("*", "/mcp", fail)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/mcp"
    try:
        async with McpExecutor(url, point="tool.invoked.pre") as executor:
            with pytest.raises(HookTransportError) as caught:
                await executor(call("pass"))
        assert "error response" in caught.value.cause
    finally:
        await runner.cleanup()


async def test_a_server_speaking_another_protocol_version_is_a_transport_error_naming_both():
    async def old_server(request: web.Request) -> web.Response:
        if request.method != "POST":
            return web.Response(status=405)
        message = await request.json()
        if "id" not in message:
            return web.Response(status=202)
        result = {
            "protocolVersion": "1999-01-01",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "old", "version": "0"},
        }
        return web.json_response({"jsonrpc": "2.0", "id": message["id"], "result": result})

    app = web.Application()
    app.router.add_route("*", "/mcp", old_server)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/mcp"
    try:
        async with McpExecutor(url, point="tool.invoked.pre") as executor:
            with pytest.raises(HookTransportError) as caught:
                await executor(call("pass"))
    finally:
        await runner.cleanup()
    cause = caught.value.cause
    assert "1999-01-01" in cause and LATEST_HANDSHAKE_VERSION in cause
    assert "RuntimeError" not in cause


async def test_refused_http_connection_is_a_transport_error():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    async with McpExecutor(url, point="tool.invoked.pre") as executor:
        with pytest.raises(HookTransportError) as caught:
            await executor(call("pass"))
    assert "ConnectError" in caught.value.cause


# --- construction ----------------------------------------------------------------------


def test_endpoint_is_redacted_and_url_credentials_are_dropped():
    stdio = McpExecutor(["hooks", "--token", "xoxb-123456789012-abcdef"], point="shutdown.pre")
    assert "xoxb" not in stdio.endpoint and "[REDACTED]" in stdio.endpoint
    http = McpExecutor("https://u:pw@hooks.example/mcp?key=k1", point="shutdown.pre")
    assert http.endpoint == "https://hooks.example/mcp"
    assert http.tool == "hooks.shutdown.pre"


@pytest.mark.parametrize(
    ("server", "point", "error"),
    [
        (["hooks"], "tool.invoked.during", UnknownHookPointError),
        ("ftp://hooks.example/mcp", "tool.invoked.pre", ValueError),
        ([], "tool.invoked.pre", ValueError),
    ],
    ids=["unknown-point", "not-http", "empty-command"],
)
def test_bad_construction_fails_at_once(server, point, error):
    with pytest.raises(error):
        McpExecutor(server, point=point)
