"""The server helper, and the shipped example end to end through a HookManager.

The example runs as its own process (``python examples/jsonrpc_policy.py --port N``),
exactly as a user would start it.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from harness.hooks import HookAbort, HookManager, JsonRpcExecutor, UnknownHookPointError
from harness.hooks.contexts import ToolCall, ToolInvokedContext, ToolResult
from harness.hooks.remote.jsonrpc_server import JsonRpcDispatcher, jsonrpc_app
from harness.hooks.remote.wire import (
    ABORT,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    encode_request,
)

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "jsonrpc_policy.py"


def request(method, context, rid=1):
    return encode_request(rid, method, {"context": context})


async def reply(dispatcher, body):
    return json.loads(await dispatcher.dispatch(body))


def test_unknown_point_is_refused_when_the_app_is_built():
    with pytest.raises(UnknownHookPointError, match=r"tool\.invoked\.pre"):
        jsonrpc_app({"tool.invoked.pr": lambda ctx: None})


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"<html>", PARSE_ERROR),
        (b'{"jsonrpc": "2.0", "id": 1}', INVALID_REQUEST),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "tool.invoked.pre"}]', INVALID_REQUEST),
        (request("llm.invoked.pre", {}), METHOD_NOT_FOUND),
        (request("tool.invoked.pre", {"call": {"id": "c"}}), INVALID_PARAMS),
    ],
    ids=["parse", "no-method", "batch", "unknown-method", "invalid-context"],
)
async def test_bad_requests_get_the_spec_error_codes(body, code):
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": lambda ctx: None})
    out = await reply(dispatcher, body)
    assert out["jsonrpc"] == "2.0" and out["error"]["code"] == code


async def test_sync_and_async_handlers_get_the_typed_context(tool_ctx):
    seen = []

    def sync(ctx):
        seen.append(ctx)

    async def rewrite(ctx):
        return ctx.model_copy(update={"result": ToolResult(content="cached")})

    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": sync, "tool.invoked.in": rewrite})
    context = tool_ctx.model_dump(mode="json")
    assert await reply(dispatcher, request("tool.invoked.pre", context, 4)) == {
        "jsonrpc": "2.0",
        "id": 4,
        "result": None,
    }
    assert seen == [tool_ctx]
    out = await reply(dispatcher, request("tool.invoked.in", context, "a"))
    assert out["id"] == "a" and out["result"]["result"] == {"content": "cached", "is_error": False}


async def test_handler_abort_becomes_the_abort_error_and_a_crash_an_internal_error(tool_ctx):
    async def veto(ctx):
        raise HookAbort("not today", refusal=True)

    def crash(ctx):
        raise KeyError("missing")

    def wrong(ctx):
        return "not a context"

    context = tool_ctx.model_dump(mode="json")
    dispatcher = JsonRpcDispatcher(
        {"tool.invoked.pre": veto, "tool.invoked.in": crash, "tool.invoked.post": wrong}
    )
    abort = (await reply(dispatcher, request("tool.invoked.pre", context)))["error"]
    assert abort == {
        "code": ABORT, "message": "not today",
        "data": {"abort": {"reason": "not today", "refusal": True}},
    }  # fmt: skip
    crashed = (await reply(dispatcher, request("tool.invoked.in", context)))["error"]
    assert crashed["code"] == INTERNAL_ERROR and "KeyError" in crashed["message"]
    wrong_type = (await reply(dispatcher, request("tool.invoked.post", context)))["error"]
    assert wrong_type["code"] == INTERNAL_ERROR and "returned str" in wrong_type["message"]


async def test_notification_runs_the_handler_and_gets_no_reply(tool_ctx):
    seen = []
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": seen.append})
    body = json.dumps(
        {"jsonrpc": "2.0", "method": "tool.invoked.pre",
         "params": {"context": tool_ctx.model_dump(mode="json")}}
    ).encode()  # fmt: skip
    assert await dispatcher.dispatch(body) is None
    assert seen == [tool_ctx]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
async def example_url():
    port = _free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(EXAMPLE), "--port", str(port),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    try:
        async with asyncio.timeout(20):
            while b"Running on" not in (line := await proc.stdout.readline()):
                assert line, "example exited before serving"
        yield f"http://127.0.0.1:{port}/"
    finally:
        proc.terminate()
        await proc.wait()


@pytest.fixture
async def policy_manager(example_url):
    """A manager with the example as the tool.invoked.pre executor and a body that records."""
    manager = HookManager()
    ran: list[ToolCall] = []

    async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
        ran.append(ctx.call)
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    executor = JsonRpcExecutor(example_url, point="tool.invoked.pre", name="example-policy")
    manager.register("tool.invoked.pre", executor)
    manager.register("tool.invoked.in", body)
    yield manager, ran
    await executor.aclose()


async def test_remote_policy_vetoes_a_tool_call_end_to_end(policy_manager, tool_ctx):
    manager, ran = policy_manager
    ctx = tool_ctx.model_copy(
        update={"call": ToolCall(id="c1", name="shell", arguments={"command": "rm -rf /tmp/x"})}
    )
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", ctx)
    assert info.value.refusal is True
    assert (info.value.point, info.value.executor) == ("tool.invoked.pre", "example-policy")
    assert ran == []  # the body never ran
    assert manager.aborts[-1].reason == "shell commands with rm -rf are not allowed"


async def test_remote_policy_rewrites_one_argument_end_to_end(policy_manager, tool_ctx):
    manager, ran = policy_manager
    call = ToolCall(id="c2", name="http_get", arguments={"url": "http://example.com", "n": 1})
    out = await manager.run("tool.invoked", tool_ctx.model_copy(update={"call": call}))
    assert ran[-1].arguments == {"url": "https://example.com", "n": 1}
    assert out.call == ran[-1] and out.result == ToolResult(content="ok")
    passed = ToolCall(id="c3", name="shell", arguments={"command": "ls"})
    await manager.run("tool.invoked", tool_ctx.model_copy(update={"call": passed}))
    assert ran[-1] == passed


async def test_example_app_answers_over_http_with_status_200(example_url, tool_ctx):
    async with aiohttp.ClientSession() as session:
        async with session.post(example_url, data=b"not json") as resp:
            assert resp.status == 200
            assert (await resp.json())["error"]["code"] == PARSE_ERROR
