"""Operation counters (issue 11): each run counted once with its outcome, aborts where they arose.

The meter is a real Temporal runtime's, recording into a ``MetricBuffer``: the same
meter the worker's Prometheus endpoint serves, read back without an HTTP scrape.
"""

from __future__ import annotations

from collections import Counter

import pytest
from temporalio.runtime import BUFFERED_METRIC_KIND_COUNTER, MetricBuffer, Runtime, TelemetryConfig

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookManager, HookTransportError, register_metrics
from harness.hooks.contexts import PersistenceReadContext


@pytest.fixture(scope="module")
def buffer() -> MetricBuffer:
    buffer = MetricBuffer(10_000)
    Runtime(telemetry=TelemetryConfig(metrics=buffer))  # the buffer keeps its runtime
    return buffer


@pytest.fixture
def counted(manager: HookManager, buffer: MetricBuffer) -> HookManager:
    buffer.retrieve_updates()  # what earlier tests left
    register_metrics(manager, buffer._runtime.metric_meter)  # type: ignore[union-attr]
    return manager


def counts(buffer: MetricBuffer) -> Counter[tuple[str, tuple[tuple[str, object], ...]]]:
    """Counter deltas since the last call, by metric name and sorted labels."""
    seen: Counter[tuple[str, tuple[tuple[str, object], ...]]] = Counter()
    for update in buffer.retrieve_updates():
        assert update.metric.kind == BUFFERED_METRIC_KIND_COUNTER
        labels = tuple(sorted((k, v) for k, v in update.attributes.items() if k != "service_name"))
        seen[update.metric.name, labels] += int(update.value)
    return seen


def op(operation: str, outcome: str) -> tuple[str, tuple[tuple[str, object], ...]]:
    return "harness_operations", (("operation", operation), ("outcome", outcome))


async def test_each_run_is_counted_once_by_operation_and_outcome(counted, buffer, tool_ctx):
    async def body(ctx):
        if ctx.call.arguments["q"] == "boom":
            raise RuntimeError("disk on fire")
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    counted.register("tool.invoked.in", body)
    await counted.run("tool.invoked", tool_ctx)
    await counted.run("tool.invoked", tool_ctx)
    boom = tool_ctx.model_copy(
        update={"call": tool_ctx.call.model_copy(update={"arguments": {"q": "boom"}})}
    )
    with pytest.raises(RuntimeError):
        await counted.run("tool.invoked", boom)
    assert counts(buffer) == {op("tool.invoked", "ok"): 2, op("tool.invoked", "error"): 1}


async def test_a_refusal_counts_once_at_the_point_that_raised_it_even_when_nested(
    counted, buffer, tool_ctx
):
    read = PersistenceReadContext(
        task=tool_ctx.task, correlation_id="corr-2", idempotency_key="T1:read-1", key="transcript"
    )

    async def veto(ctx):
        raise HookAbort("no reading", refusal=True)

    async def reads(ctx):  # a tool that reads state: one operation inside another
        await counted.run("persistence.read", read)

    counted.register("persistence.read.pre", veto)
    counted.register("tool.invoked.in", reads)
    with pytest.raises(HookAbort):
        await counted.run("tool.invoked", tool_ctx)
    assert counts(buffer) == {
        op("persistence.read", "refusal"): 1,
        op("tool.invoked", "refusal"): 1,  # the outer operation ended with it too ...
        ("harness_aborts", (("kind", "refusal"), ("point", "persistence.read.pre"))): 1,  # ... once
    }


async def test_transport_errors_and_retries_are_counted(counted, buffer, tool_ctx):
    async def unreachable(ctx):
        raise HookTransportError(
            point="tool.invoked.post", endpoint="http://127.0.0.1:9/", cause="connection refused"
        )

    counted.register("tool.invoked.in", _ok_body())
    counted.register("tool.invoked.post", unreachable)
    with pytest.raises(HookTransportError):
        await counted.run("tool.invoked", tool_ctx.model_copy(update={"attempt": 3}))
    assert counts(buffer) == {
        op("tool.invoked", "transport_error"): 1,
        ("harness_transport_errors", (("point", "tool.invoked.post"),)): 1,
        ("harness_retries", (("operation", "tool.invoked"),)): 1,
    }


async def test_without_the_counters_nothing_is_recorded(manager, buffer, tool_ctx):
    buffer.retrieve_updates()
    manager.register("tool.invoked.in", _ok_body())
    await manager.run("tool.invoked", tool_ctx)
    assert counts(buffer) == {}


def _ok_body():
    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    return body
