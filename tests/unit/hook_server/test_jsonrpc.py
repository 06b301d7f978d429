"""The server helper: JSON-RPC requests in, the spec's replies out.

The shipped example that uses it is started as its own process in
``tests/examples/test_jsonrpc_policy.py``.
"""

from __future__ import annotations

import json

import pytest

from harness.domain import ToolResult
from harness.hook_server.jsonrpc import JsonRpcDispatcher, jsonrpc_app
from harness.hooks import HookAbort, UnknownHookPointError
from harness.hooks.remote.wire import (
    ABORT,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    encode_request,
)


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
        "code": ABORT,
        "message": "not today",
        "data": {"abort": {"reason": "not today", "refusal": True}},
    }
    crashed = (await reply(dispatcher, request("tool.invoked.in", context)))["error"]
    assert crashed["code"] == INTERNAL_ERROR and "KeyError" in crashed["message"]
    wrong_type = (await reply(dispatcher, request("tool.invoked.post", context)))["error"]
    assert wrong_type["code"] == INTERNAL_ERROR and "returned str" in wrong_type["message"]


async def test_notification_runs_the_handler_and_gets_no_reply(tool_ctx):
    seen = []
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": seen.append})
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "tool.invoked.pre",
            "params": {"context": tool_ctx.model_dump(mode="json")},
        }
    ).encode()
    assert await dispatcher.dispatch(body) is None
    assert seen == [tool_ctx]
