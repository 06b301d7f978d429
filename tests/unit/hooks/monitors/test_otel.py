"""Tracing and the operation log (issue 6): a span per operation under the task, none left open."""

from __future__ import annotations

import json
import logging

import pytest
from aiohttp import web
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from harness.domain import Message, TaskRef, ToolResult
from harness.hooks import HookAbort, HookManager, HookTransportError, load_hooks_config
from harness.hooks.contexts import LlmInvokedContext, PersistenceWriteContext, ToolInvokedContext
from harness.hooks.monitors.otel import _OPEN, register_tracing, task_span_context


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


@pytest.fixture
def traced(manager: HookManager, spans):
    register_tracing(manager, spans[0])
    return manager


def operation_spans(exporter):
    """The operations' spans; each executor call's decision span is under one of them."""
    return [s for s in exporter.get_finished_spans() if "harness.operation" in s.attributes]


def set_result(content: str):
    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content=content)})

    return body


async def test_one_span_per_operation_nested_under_the_task_closed_on_success(
    traced, spans, tool_ctx
):
    traced.register("tool.invoked.in", set_result("ok"))
    await traced.run("tool.invoked", tool_ctx)
    await traced.run("tool.invoked", tool_ctx.model_copy(update={"attempt": 2}))
    first, second = operation_spans(spans[1])
    task = task_span_context("T1")
    for span, attempt in ((first, 1), (second, 2)):
        assert span.name == "tool.invoked" and span.status.status_code is StatusCode.OK
        assert span.parent.span_id == task.span_id
        assert span.context.trace_id == task.trace_id
        assert span.attributes["harness.task_id"] == "T1"
        assert span.attributes["harness.correlation_id"] == "corr-1"
        assert span.attributes["harness.attempt"] == attempt
        assert span.attributes["harness.outcome"] == "ok"
    assert _OPEN.get() == ()
    assert task_span_context("T1") == task and task_span_context("T2").trace_id != task.trace_id


async def test_a_span_closes_on_abort_and_on_body_failure_via_abandon(traced, spans, tool_ctx):
    async def veto(ctx):
        raise HookAbort("no searching", refusal=True)

    handle = traced.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort):
        await traced.run("tool.invoked", tool_ctx)
    traced.unregister(handle)

    async def broken(ctx):
        raise RuntimeError("disk on fire")

    traced.register("tool.invoked.in", broken)
    with pytest.raises(RuntimeError):
        await traced.run("tool.invoked", tool_ctx)

    refused, failed = operation_spans(spans[1])
    assert refused.attributes["harness.outcome"] == "refusal"
    assert refused.attributes["harness.abort_reason"] == "no searching"
    assert refused.status.status_code is StatusCode.ERROR
    assert failed.attributes["harness.outcome"] == "error"
    assert failed.status.description == "RuntimeError: disk on fire"
    assert _OPEN.get() == ()


async def test_no_span_is_left_open_when_a_post_validator_vetoes(traced, spans, tool_ctx):
    async def late_veto(ctx):
        raise HookAbort("output rejected")

    traced.register("tool.invoked.post", late_veto, priority=5, mode="validator")
    with pytest.raises(HookAbort):
        await traced.run("tool.invoked", tool_ctx)
    # A validator past INNERMOST_PRIORITY would run after the span closed: still none open.
    traced.register("tool.invoked.post", late_veto, priority=2_000_000_000, mode="validator")
    with pytest.raises(HookAbort):
        await traced.run("tool.invoked", tool_ctx)
    first, second = operation_spans(spans[1])
    assert first.attributes["harness.outcome"] == "abort"
    assert first.attributes["harness.abort_reason"] == "output rejected"
    assert second.end_time is not None
    assert _OPEN.get() == ()


async def test_an_operation_run_inside_another_nests_under_its_span(traced, spans, tool_ctx):
    async def body_that_writes(ctx):
        await traced.run(
            "persistence.write", PersistenceWriteContext(task=ctx.task, key="k", content="c")
        )
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    traced.register("tool.invoked.in", body_that_writes)
    await traced.run("tool.invoked", tool_ctx)
    inner, outer = operation_spans(spans[1])
    assert (inner.name, outer.name) == ("persistence.write", "tool.invoked")
    assert inner.parent.span_id == outer.context.span_id
    assert outer.parent.span_id == task_span_context("T1").span_id


CANARY_ARG = "sk-canaryARGUMENT0123456789abcdef"
CANARY_MSG = "xoxb-canary-message-0123456789"
CANARY_HEADER = "c4n4ry-h3ader-0xdeadbeef"


@pytest.fixture
async def echoing_server():
    """Rejects every call with a 401 whose body quotes the key header back (a leaky server)."""

    async def handle(request: web.Request) -> web.Response:
        return web.Response(status=401, text=f"key {request.headers.get('X-Hook-Key')} rejected")

    app = web.Application()
    app.router.add_post("/", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}/"
    await runner.cleanup()


async def test_logs_spans_and_audit_hold_no_canary_from_an_argument_a_message_or_a_header(
    tmp_path, spans, caplog, echoing_server
):
    config = tmp_path / "hooks.toml"
    config.write_text(f"""
[observability]
logs = true

[[executor]]
name = "leaky-remote"
kind = "jsonrpc"
points = "llm.invoked.pre"
url = "{echoing_server}"
headers = {{ X-Hook-Key = "HOOK_KEY" }}
""")
    manager = HookManager()
    applied = load_hooks_config(config, environ={"HOOK_KEY": CANARY_HEADER}).apply(manager)
    register_tracing(manager, spans[0])
    seen_args: list[object] = []

    async def tool_body(ctx):
        seen_args.append(ctx.call.arguments)
        raise RuntimeError(f"tool failed with api_key={ctx.call.arguments['api_key']}")

    manager.register("tool.invoked.in", tool_body)
    task = TaskRef(task_id="T1")
    tool = {"id": "c1", "name": "http", "arguments": {"api_key": CANARY_ARG}}
    message = Message(role="user", content=f"use {CANARY_MSG}")
    llm = LlmInvokedContext(task=task, model="m", correlation_id="corr-2", messages=(message,))
    caplog.set_level(logging.INFO)
    with pytest.raises(RuntimeError):
        await manager.run(
            "tool.invoked", ToolInvokedContext(task=task, call=tool, correlation_id="corr-1")
        )
    with pytest.raises(HookTransportError) as transport:
        await manager.run("llm.invoked", llm)
    await manager.aclose()
    applied.remove()

    assert "rejected" in str(transport.value) and "HTTP 401" in str(transport.value)
    assert seen_args and CANARY_ARG not in json.dumps(seen_args)  # executors see it redacted too
    texts = [record.getMessage() for record in caplog.records]
    assert any('"point":"llm.invoked.pre"' in t and '"outcome":"error"' in t for t in texts)
    for span in spans[1].get_finished_spans():
        texts += [span.to_json()]
    texts += [json.dumps(r.as_dict()) for r in manager.audit.last(50)]
    texts.append(str(transport.value))
    blob = "\n".join(texts)
    # Two operations, and a decision span for each one's failing executor: none holds a canary.
    assert len(spans[1].get_finished_spans()) == 4 and manager.audit.last(50)
    for canary in (CANARY_ARG, CANARY_MSG, CANARY_HEADER):
        assert canary not in blob, canary
