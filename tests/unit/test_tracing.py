"""Tracing from OTEL_* (issue 11): nothing unless asked; real spans reach a local collector."""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import TaskRef, ToolCall, ToolResult
from harness.hooks import HookManager, register_tracing
from harness.hooks.contexts import ToolInvokedContext
from harness.tracing import TracingConfigError, describe, header_values, tracer_provider
from tests.support.otlp_receiver import start_receiver

HEADER_SECRET = "zq-collector-key-Odd9shape"
OTEL_VARIABLES = (
    "OTEL_SDK_DISABLED",
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
    "OTEL_SERVICE_NAME",
    "OTEL_RESOURCE_ATTRIBUTES",
)


@pytest.fixture(autouse=True)
def clean_otel_env(monkeypatch):
    for name in OTEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OTEL_TRACES_EXPORTER": "none"},
        {"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
        {"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
    ],
    ids=["nothing-set", "exporter-none", "sdk-disabled", "no-endpoint-or-exporter"],
)
def test_nothing_is_exported_unless_an_exporter_or_endpoint_is_configured(env):
    assert tracer_provider(env, service="s") is None
    assert describe(None).startswith("tracing off")


@pytest.mark.parametrize(
    ("env", "variable", "says"),
    [
        (
            {"OTEL_TRACES_EXPORTER": "otlp,jaeger"},
            "OTEL_TRACES_EXPORTER",
            "unknown exporter jaeger",
        ),
        ({"OTEL_SDK_DISABLED": "maybe"}, "OTEL_SDK_DISABLED", "true or false"),
        (
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            "use http/protobuf or grpc",
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http:// or https:// URL",
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
                "OTEL_EXPORTER_OTLP_HEADERS": f"x-tenant=a,Authorization {HEADER_SECRET}",
            },
            "OTEL_EXPORTER_OTLP_HEADERS",
            "entry 2 is not name=value",
        ),
        (
            {
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector.example.com:4318/v1/traces",
                "OTEL_EXPORTER_OTLP_HEADERS": f"x-api-key={HEADER_SECRET}",
            },
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "would send OTEL_EXPORTER_OTLP_HEADERS over plain HTTP to collector.example.com",
        ),
    ],
    ids=[
        "unknown-exporter",
        "bad-boolean",
        "unsupported-protocol",
        "endpoint-not-url",
        "header-not-name-value",
        "headers-in-clear",
    ],
)
def test_a_wrong_variable_is_named_with_the_fix_and_never_its_value(env, variable, says):
    with pytest.raises(TracingConfigError) as caught:
        tracer_provider(env, service="s")
    assert caught.value.variable == variable and says in str(caught.value)
    assert str(caught.value).startswith(f"{variable}: ") and HEADER_SECRET not in str(caught.value)
    assert caught.value.retryable is False


@pytest.mark.parametrize("endpoint", ["https://collector.example.com:4318", "http://[::1]:4318"])
def test_headers_go_over_https_or_to_a_loopback_collector(endpoint):
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_HEADERS": "x-key=v"}
    provider = tracer_provider(env, service="s")
    assert provider is not None
    provider.shutdown()


def test_header_values_are_masked_raw_and_decoded():
    assert header_values(f"authorization=Bearer%20{HEADER_SECRET}, x-tenant=acme") == [
        f"Bearer%20{HEADER_SECRET}",
        f"Bearer {HEADER_SECRET}",
        "acme",
    ]


async def test_spans_of_a_real_operation_reach_an_otlp_http_collector(monkeypatch):
    receiver, runner = await start_receiver()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)  # no exporter named: otlp
    monkeypatch.setenv("OTEL_SERVICE_NAME", "harness-under-test")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=unit")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", f"x-collector-key={HEADER_SECRET}")
    provider = tracer_provider(service="default-name")
    assert provider is not None
    assert describe(provider) == (
        f"tracing to otlp (http/protobuf, {receiver.url}) as harness-under-test"
    )
    manager = HookManager()
    register_tracing(manager, provider)
    assert register_tracing(manager, provider) is None  # a second call adds no second span

    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    manager.register("tool.invoked.in", body)
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="task/T/C", team="T", channel="C"),
        correlation_id="corr-otlp",
        idempotency_key="k",
        call=ToolCall(id="1", name="echo", arguments={}),
    )
    try:
        await manager.run("tool.invoked", ctx)
        # The exporter posts from the SDK's thread, synchronously: flush off the event loop.
        assert await asyncio.to_thread(provider.force_flush, 10_000)
        received = await receiver.wait_for(lambda spans: len(spans) >= 2)
    finally:
        provider.shutdown()
        await runner.cleanup()
    # The operation's span, and its body's decision span under it (issue 15).
    [span] = [s for s in received if s.name == "tool.invoked"]
    [decision] = [s for s in received if s.name != "tool.invoked"]
    assert decision.attributes["harness.decision"] == "rewrite"
    assert decision.attributes["harness.point"] == "tool.invoked.in"
    assert span.attributes["harness.correlation_id"] == "corr-otlp"
    assert span.attributes["harness.task_id"] == "task/T/C"
    assert span.resource["service.name"] == "harness-under-test"
    assert span.resource["deployment.environment"] == "unit"
    assert receiver.headers[0]["x-collector-key"] == HEADER_SECRET


def test_the_process_name_is_the_service_name_when_none_is_configured(monkeypatch):
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "console")
    provider = tracer_provider(service="tiny-harness-worker")
    assert provider is not None
    try:
        assert provider.resource.attributes["service.name"] == "tiny-harness-worker"
    finally:
        provider.shutdown()
