"""JsonRpcExecutor against real loopback servers: success, every failure, the abort convention."""

from __future__ import annotations

import json
import time

import pytest

from harness.domain import ToolCall
from harness.hooks import HookAbort, HookTransportError, JsonRpcExecutor, UnknownHookPointError
from harness.hooks.contexts import LlmInvokedContext
from harness.http import AiohttpClient, HttpxClient
from tests.unit.hooks.remote.conftest import LEAKED_TOKEN

POINT = "tool.invoked.pre"


@pytest.fixture(params=[AiohttpClient, HttpxClient], ids=["aiohttp", "httpx"])
async def http(request):
    client = request.param()
    yield client
    await client.aclose()


@pytest.fixture
async def call(http):
    """``call(url, ctx, **options)``: one executor call on the shared HTTP client."""

    async def run(url, ctx, **options):
        return await JsonRpcExecutor(url, point=POINT, http=http, **options)(ctx)

    return run


def with_call(ctx, name, **arguments):
    return ctx.model_copy(update={"call": ToolCall(id="call-9", name=name, arguments=arguments)})


async def failure(call, url, ctx, **options) -> HookTransportError:
    with pytest.raises(HookTransportError) as info:
        await call(url, ctx, **options)
    assert info.value.point == POINT
    return info.value


async def test_null_result_passes_through(call, rpc_server, tool_ctx):
    assert await call(rpc_server.url("/rpc"), with_call(tool_ctx, "read_file", path="a")) is None


async def test_result_is_the_replacement_context_typed_for_the_point(call, rpc_server, tool_ctx):
    out = await call(rpc_server.url("/rpc"), tool_ctx)
    assert type(out) is type(tool_ctx)
    assert out.call.arguments == {"q": "weather in Paris", "max_results": 5}
    assert out.model_copy(update={"call": tool_ctx.call}) == tool_ctx  # nothing else changed


async def test_recorded_replacement_reply_is_accepted(call, bad_server, tool_ctx):
    out = await call(bad_server.url("/recorded/replacement"), tool_ctx)
    assert out.call.arguments["max_results"] == 5 and out.task == tool_ctx.task


async def test_request_is_a_jsonrpc_call_of_the_point_with_the_context(call, bad_server, tool_ctx):
    executor = JsonRpcExecutor(bad_server.url("/echo-null"), point=POINT, http=AiohttpClient())
    try:
        assert await executor(tool_ctx) is None
        assert await executor(tool_ctx) is None
    finally:
        await executor._http.aclose()
    first, second = (json.loads(body) for body in bad_server.bodies[-2:])
    assert first["jsonrpc"] == "2.0" and first["method"] == POINT
    assert first["params"] == {"context": tool_ctx.model_dump(mode="json")}
    assert first["id"] != second["id"]


async def test_remote_abort_becomes_hook_abort_not_transport_error(call, rpc_server, tool_ctx):
    with pytest.raises(HookAbort) as info:
        await call(rpc_server.url("/rpc"), with_call(tool_ctx, "shell", command="rm -rf /"))
    assert info.value.reason == "rm -rf is not allowed" and info.value.refusal is True


async def test_recorded_abort_reply_becomes_hook_abort(call, bad_server, tool_ctx):
    with pytest.raises(HookAbort, match="rm -rf is not allowed") as info:
        await call(bad_server.url("/recorded/abort"), tool_ctx)
    assert info.value.refusal is True


async def test_hanging_server_fails_within_the_deadline(call, bad_server, tool_ctx):
    start = time.monotonic()
    error = await failure(call, bad_server.url("/hang"), tool_ctx, timeout=0.3)
    assert time.monotonic() - start < 1.3  # the server waits 30 s
    assert "timeout" in error.cause


async def test_dripping_server_fails_at_the_total_deadline(call, bad_server, tool_ctx):
    start = time.monotonic()
    error = await failure(call, bad_server.url("/drip"), tool_ctx, timeout=0.4)
    assert time.monotonic() - start < 1.4  # the drip alone would take 10 s
    assert "timeout" in error.cause


async def test_server_closing_mid_body_fails(call, bad_server, tool_ctx):
    assert "closed" in (await failure(call, bad_server.url("/close-mid-body"), tool_ctx)).cause


async def test_connection_reset_fails(call, bad_server, tool_ctx):
    assert "closed" in (await failure(call, bad_server.url("/reset"), tool_ctx)).cause


async def test_connection_refused_fails(call, closed_port_url, tool_ctx):
    error = await failure(call, closed_port_url, tool_ctx)
    assert error.cause.startswith("connect")
    assert error.endpoint == closed_port_url


async def test_html_500_fails_with_status_and_a_snippet(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/html-500"), tool_ctx)
    assert error.cause.startswith("HTTP 500 (text/html")
    assert "Internal Server Error" in error.cause and len(error.cause) < 300


async def test_body_that_is_not_json_fails(call, bad_server, tool_ctx):
    assert "not JSON" in (await failure(call, bad_server.url("/not-json"), tool_ctx)).cause


async def test_wrong_jsonrpc_version_fails(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/recorded/wrong_version"), tool_ctx)
    assert "jsonrpc: Input should be '2.0'" in error.cause


async def test_mismatched_id_fails(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/id-mismatch"), tool_ctx)
    assert "does not match request id" in error.cause


async def test_error_object_fails_with_its_code_message_and_data(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/recorded/error_object"), tool_ctx)
    assert "JSON-RPC error -32000: policy engine unavailable" in error.cause
    assert '"retry_after":30' in error.cause


async def test_reply_with_result_and_error_fails(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/recorded/result_and_error"), tool_ctx)
    assert "exactly one of 'result' and 'error'" in error.cause


async def test_result_that_is_not_a_valid_context_fails(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/recorded/invalid_result"), tool_ctx)
    assert "result.call.name" in error.cause and "result.unexpected" in error.cause


async def test_reply_over_the_size_cap_fails(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/oversize"), tool_ctx)
    assert "too_large" in error.cause
    error = await failure(call, bad_server.url("/echo-null"), tool_ctx, max_reply_bytes=10)
    assert "10-byte cap" in error.cause


async def test_remote_handler_crash_fails_with_internal_error(http, rpc_server):
    executor = JsonRpcExecutor(rpc_server.url("/rpc"), point="llm.invoked.pre", http=http)
    with pytest.raises(HookTransportError) as info:
        await executor(LlmInvokedContext(model="m", messages=()))
    assert "JSON-RPC error -32603: RuntimeError: model registry offline" in info.value.cause


async def test_secrets_in_error_text_and_url_are_redacted(call, bad_server, tool_ctx):
    url = bad_server.url("/recorded/secret_error") + "?token=hunter2-hunter2"
    error = await failure(call, url, tool_ctx)
    text = str(error)
    assert "xoxb-1111111111" not in text and "abcdef1234567890" not in text
    assert "hunter2" not in text and "hunter2" not in error.endpoint
    assert text.count("[REDACTED]") >= 3


def chain_texts(error: BaseException) -> list[str]:
    """The text of ``error`` and of every exception reachable as a cause or a context."""
    texts: list[str] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        texts += [str(exc), repr(exc)]
        todo += [exc.__cause__, exc.__context__]
    return texts


async def test_no_cause_or_context_holds_a_secret_from_an_error_page(call, bad_server, tool_ctx):
    error = await failure(call, bad_server.url("/secret-500"), tool_ctx)
    texts = chain_texts(error)
    assert "HTTP 500" in error.cause and len(texts) > 2
    assert not [text for text in texts if LEAKED_TOKEN in text]


async def test_context_of_another_operation_is_refused_before_sending(call, bad_server):
    mark = len(bad_server.peers)
    other = LlmInvokedContext(model="m", messages=())
    error = await failure(call, bad_server.url("/echo-null"), other)
    assert "given a LlmInvokedContext" in error.cause
    assert len(bad_server.peers) == mark


def test_construction_checks_the_point_and_limits():
    with pytest.raises(UnknownHookPointError):
        JsonRpcExecutor("http://127.0.0.1:1/", point="tool.invoke.pre")
    with pytest.raises(ValueError, match="positive"):
        JsonRpcExecutor("http://127.0.0.1:1/", point=POINT, timeout=0)


async def test_owned_client_is_closed_by_aclose_and_a_given_one_is_not(bad_server, tool_ctx):
    owned = JsonRpcExecutor(bad_server.url("/echo-null"), point=POINT)
    assert await owned(tool_ctx) is None
    await owned.aclose()
    with pytest.raises(HookTransportError, match="closed"):
        await owned(tool_ctx)
    given = AiohttpClient()
    borrowing = JsonRpcExecutor(bad_server.url("/echo-null"), point=POINT, http=given)
    await borrowing(tool_ctx)
    await borrowing.aclose()
    resp = await given.post(
        bad_server.url("/echo-null"),
        body=b'{"id": 1}',
        headers={},
        timeout=2,
        max_bytes=1000,
    )
    assert resp.status == 200
    await given.aclose()


async def test_executor_calls_reuse_one_connection(bad_server, tool_ctx):
    executor = JsonRpcExecutor(bad_server.url("/echo-null"), point=POINT)
    mark = len(bad_server.peers)
    for _ in range(10):
        await executor(tool_ctx)
    await executor.aclose()
    assert bad_server.connections_since(mark) == 1
