"""Decision spans and trace context (issue 15, point 4): a child span per executor call with its
decision, and the W3C traceparent a remote executor receives (a real JSON-RPC server over
aiohttp, a real MCP server over stdio) naming that span."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from aiohttp import web
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookManager, Redactor, load_hooks_config
from harness.hooks.monitors.otel import register_tracing
from harness.hooks.remote.wire import SCHEMA_VERSION

HERE = "tests.unit.hooks.monitors.test_decision_spans"
MCP_SERVER = [sys.executable, str(Path(__file__).with_name("servers") / "mcp_trace.py")]
SECRET = "s3cr3t-policy-token-0xfeed"


async def passes(ctx):
    return None


async def rewrites(ctx):
    call = ctx.call.model_copy(update={"arguments": {"q": "rewritten"}})
    return ctx.model_copy(update={"call": call})


async def vetoes(ctx):
    raise HookAbort(f"no searching with {SECRET}", refusal=True)


async def aborts(ctx):
    raise HookAbort("policy store unreadable")


async def asks(ctx):
    raise HookAbort("a person must approve search", ask=True, timeout_seconds=60)


async def hangs(ctx):
    await asyncio.sleep(30)


async def breaks(ctx):
    raise RuntimeError(f"backend said {SECRET}")


async def body(ctx):
    return ctx.model_copy(update={"result": ToolResult(content="ok")})


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def configured(tmp_path, text: str) -> HookManager:
    path = tmp_path / "hooks.toml"
    path.write_text(text)
    manager = HookManager(redactor=Redactor(secrets=[SECRET]))
    load_hooks_config(path).apply(manager)
    manager.register("tool.invoked.in", body)
    return manager


def local(target: str, extra: str = "") -> str:
    return f"""
[[executor]]
name = "{target}"
kind = "local"
points = "tool.invoked.pre"
target = "{HERE}:{target}"
{extra}
"""


def split(exporter):
    finished = exporter.get_finished_spans()
    operations = [s for s in finished if "harness.operation" in s.attributes]
    decisions = [s for s in finished if "harness.decision" in s.attributes]
    return operations, decisions


@pytest.mark.parametrize(
    ("target", "extra", "decision", "raises"),
    [
        ("passes", "", "pass", None),
        ("rewrites", "", "rewrite", None),
        ("vetoes", "", "veto", HookAbort),
        ("aborts", "", "abort", HookAbort),
        ("asks", "", "ask", HookAbort),
        ("hangs", "timeout = 0.05", "timeout", TimeoutError),
        ("breaks", 'on_failure = "ignore"', "failed-open", None),
        ("breaks", "", "error", RuntimeError),
    ],
    ids=["pass", "rewrite", "veto", "abort", "ask", "timeout", "failed-open", "error"],
)
async def test_one_child_span_per_executor_call_with_its_decision(
    tmp_path, spans, tool_ctx, target, extra, decision, raises
):
    manager = configured(tmp_path, local(target, extra))
    register_tracing(manager, spans[0])
    if raises is None:
        await manager.run("tool.invoked", tool_ctx)
    else:
        with pytest.raises(raises):
            await manager.run("tool.invoked", tool_ctx)
    [operation], decisions = split(spans[1])
    mine = [s for s in decisions if s.attributes["harness.point"] == "tool.invoked.pre"]
    assert len(mine) == 1
    [span] = mine
    assert span.parent.span_id == operation.context.span_id
    assert span.context.trace_id == operation.context.trace_id
    assert span.attributes["harness.decision"] == decision
    assert span.attributes["harness.executor"] == target
    assert span.attributes["harness.kind"] == "local"
    assert span.attributes["harness.duration_ms"] >= 0
    assert span.end_time is not None
    reason = span.attributes.get("harness.reason", "")
    assert SECRET not in reason and SECRET not in (span.status.description or "")
    if decision == "veto":
        assert reason == "no searching with [REDACTED]"  # the why is there, masked
    if decision in ("failed-open", "error"):
        assert reason == "RuntimeError: backend said [REDACTED]"
    if decision == "ask":
        assert reason == "a person must approve search"
    expected = StatusCode.ERROR if decision in ("timeout", "error") else StatusCode.OK
    assert span.status.status_code is expected
    if raises is None:  # the body ran too, and has its own span
        assert [s.attributes["harness.point"] for s in decisions] == [
            "tool.invoked.pre",
            "tool.invoked.in",
        ]


async def test_without_tracing_no_span_and_no_monitor(tmp_path, spans, tool_ctx):
    manager = configured(tmp_path, local("passes"))
    await manager.run("tool.invoked", tool_ctx)
    assert spans[1].get_finished_spans() == () and manager.monitors("executor") == ()


async def test_removing_tracing_removes_the_decision_spans_too(tmp_path, spans, tool_ctx):
    manager = configured(tmp_path, local("passes"))
    handle = register_tracing(manager, spans[0])
    assert len(manager.monitors("executor")) == 1
    handle()
    assert manager.monitors("executor") == () and manager.monitors("operation") == ()
    await manager.run("tool.invoked", tool_ctx)
    assert spans[1].get_finished_spans() == ()


@pytest.mark.parametrize("mode", ["normal", "validator", "audit", "observer"])
async def test_an_executor_its_match_skips_makes_no_decision_span(tmp_path, spans, tool_ctx, mode):
    """Issue 28: a skipped executor never ran, so it decided nothing (it used to show "pass")."""
    manager = configured(
        tmp_path, local("passes", f'mode = "{mode}"\nmatch = {{ tool = "shell" }}')
    )
    register_tracing(manager, spans[0])
    await manager.run("tool.invoked", tool_ctx)  # the tool is "search": skipped
    shell = tool_ctx.call.model_copy(update={"name": "shell"})
    await manager.run("tool.invoked", tool_ctx.model_copy(update={"call": shell}))
    await manager.observers.drain(5)
    operations, decisions = split(spans[1])
    mine = [s for s in decisions if s.attributes["harness.executor"] == "passes"]
    assert len(operations) == 2 and len(mine) == 1  # the matching run only
    assert mine[0].parent.span_id == operations[1].context.span_id
    assert mine[0].attributes["harness.mode"] == mode


async def renames(ctx):
    return ctx.model_copy(update={"call": ctx.call.model_copy(update={"name": "shell"})})


async def test_an_audited_executor_matches_the_context_the_audit_would_have_made(
    tmp_path, spans, tool_ctx
):
    """In a dry run an audited executor sees earlier audited rewrites (issue 26), so its match
    reads that context, and it is watched when the dry run would have run it."""
    text = local("renames", 'mode = "audit"\npriority = 1') + local(
        "passes", 'mode = "audit"\npriority = 2\nmatch = { tool = "shell" }'
    )
    manager = configured(tmp_path, text)
    register_tracing(manager, spans[0])
    await manager.run("tool.invoked", tool_ctx)  # live, the tool stays "search"
    _, decisions = split(spans[1])
    names = [s.attributes["harness.executor"] for s in decisions]
    assert names[:2] == ["renames", "passes"]


@pytest.fixture
async def recording_rpc():
    """A real JSON-RPC hook server that passes every call and keeps each request's headers."""
    seen: list[dict[str, str]] = []

    async def handle(request: web.Request) -> web.Response:
        seen.append({k.lower(): v for k, v in request.headers.items()})
        payload = await request.json()
        return web.json_response({"jsonrpc": "2.0", "id": payload["id"], "result": None})

    app = web.Application()
    app.router.add_post("/hooks", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/hooks", seen
    await runner.cleanup()


def remote_entry(kind: str, where: str) -> str:
    return f"""
[[executor]]
name = "remote-{kind}"
kind = "{kind}"
points = "tool.invoked.pre"
{where}
timeout = 20
"""


def parse_traceparent(value: str) -> tuple[int, int]:
    version, trace_id, span_id, flags = value.split("-")
    assert version == "00" and len(trace_id) == 32 and len(span_id) == 16 and flags == "01"
    return int(trace_id, 16), int(span_id, 16)


async def test_a_json_rpc_executor_gets_its_decision_span_as_traceparent(
    tmp_path, spans, tool_ctx, recording_rpc
):
    url, seen = recording_rpc
    manager = configured(tmp_path, remote_entry("jsonrpc", f'url = "{url}"'))
    await manager.run("tool.invoked", tool_ctx)  # tracing off: nothing extra is sent
    register_tracing(manager, spans[0])
    await manager.run("tool.invoked", tool_ctx)
    await manager.aclose()

    assert "traceparent" not in seen[0] and "tracestate" not in seen[0]
    _, decisions = split(spans[1])
    [span] = [s for s in decisions if s.attributes["harness.kind"] == "jsonrpc"]
    assert span.attributes["harness.decision"] == "pass"
    trace_id, parent_id = parse_traceparent(seen[1]["traceparent"])
    assert (trace_id, parent_id) == (span.context.trace_id, span.context.span_id)
    assert "baggage" not in seen[1]


async def test_an_mcp_executor_gets_its_decision_span_as_traceparent_in_meta(
    tmp_path, spans, tool_ctx
):
    command = "command = [" + ", ".join(f'"{part}"' for part in MCP_SERVER) + "]"
    manager = configured(tmp_path, remote_entry("mcp", command))
    try:
        untraced = await manager.run("tool.invoked", tool_ctx)
        register_tracing(manager, spans[0])
        traced = await manager.run("tool.invoked", tool_ctx)
    finally:
        await manager.aclose()

    assert "traceparent" not in untraced.call.arguments["meta"]
    assert untraced.call.arguments["meta"]["tiny-harness.dev/schema"] == SCHEMA_VERSION
    assert traced.call.arguments["meta"]["tiny-harness.dev/schema"] == SCHEMA_VERSION  # beside it
    _, decisions = split(spans[1])
    [span] = [s for s in decisions if s.attributes["harness.kind"] == "mcp"]
    assert span.attributes["harness.decision"] == "rewrite"
    trace_id, parent_id = parse_traceparent(traced.call.arguments["meta"]["traceparent"])
    assert (trace_id, parent_id) == (span.context.trace_id, span.context.span_id)


async def test_a_python_server_continues_the_trace_under_the_decision_span(
    tmp_path, spans, tool_ctx
):
    """What docs/hooks/tracing.md shows a third party: extract the header, start spans under it."""
    from opentelemetry import context as otel_context
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    from harness.hook_server.jsonrpc import jsonrpc_app

    service = InMemorySpanExporter()
    their_provider = TracerProvider()
    their_provider.add_span_processor(SimpleSpanProcessor(service))
    tracer = their_provider.get_tracer("policy-service")

    @web.middleware
    async def continue_trace(request: web.Request, handler):
        token = otel_context.attach(TraceContextTextMapPropagator().extract(request.headers))
        try:
            return await handler(request)
        finally:
            otel_context.detach(token)

    async def check(ctx):
        with tracer.start_as_current_span("policy-check"):
            return None

    app = jsonrpc_app({"tool.invoked.pre": check}, path="/hooks")
    app.middlewares.append(continue_trace)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"
    try:
        manager = configured(tmp_path, remote_entry("jsonrpc", f'url = "{url}"'))
        register_tracing(manager, spans[0])
        await manager.run("tool.invoked", tool_ctx)
        await manager.aclose()
    finally:
        await runner.cleanup()
        their_provider.shutdown()
    _, decisions = split(spans[1])
    [ours] = [s for s in decisions if s.attributes["harness.kind"] == "jsonrpc"]
    [theirs] = service.get_finished_spans()
    assert theirs.context.trace_id == ours.context.trace_id
    assert theirs.parent.span_id == ours.context.span_id and theirs.parent.is_remote


def test_the_trace_context_is_w3c_only_with_tracestate_when_set_and_none_without_a_span():
    from opentelemetry import baggage, trace
    from opentelemetry import context as otel_context
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

    from harness.hooks.remote.trace_context import trace_context

    assert trace_context() is None
    span = NonRecordingSpan(
        SpanContext(
            trace_id=0x1234,
            span_id=0x42,
            is_remote=False,
            trace_flags=TraceFlags(1),
            trace_state=TraceState([("vendor", "opaque")]),
        )
    )
    token = otel_context.attach(baggage.set_baggage("user", "not-for-hooks"))
    try:
        with trace.use_span(span):
            sent = trace_context()
    finally:
        otel_context.detach(token)
    parent = f"00-{0x1234:032x}-{0x42:016x}-01"
    assert sent == {"traceparent": parent, "tracestate": "vendor=opaque"}  # never baggage
