"""A worker's tracing in a process of its own, for tests/unit/hooks/monitors/test_traceparent.py.

The OpenTelemetry SDK provider is process-wide, so the test runs this script: it sets tracing up
from its ``OTEL_*`` environment as the worker does (:func:`harness.tracing.configure_tracing`,
then :func:`harness.plugins.register_monitors`), loads the hooks file named by its argument,
runs one ``tool.invoked`` with some baggage in its context, and prints the ``_meta`` the MCP
server echoed back (``servers/mcp_trace.py``) as JSON on stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from opentelemetry import baggage
from opentelemetry import context as otel_context

from harness.domain import TaskRef, ToolCall, ToolResult
from harness.hooks import HookManager, load_hooks_config
from harness.hooks.contexts import ToolInvokedContext
from harness.plugins import register_monitors
from harness.tracing import configure_tracing


async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
    return ctx.model_copy(update={"result": ToolResult(content="ok")})


async def run(config: Path) -> dict[str, str]:
    manager = HookManager()
    load_hooks_config(config).apply(manager)
    manager.register("tool.invoked.in", body)
    register_monitors(manager, None)  # spans, since this process has an SDK provider
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="T-traced"),
        correlation_id="corr-traced",
        idempotency_key="T-traced:1",
        call=ToolCall(id="call-1", name="search", arguments={}),
    )
    token = otel_context.attach(baggage.set_baggage("user", "not-for-hooks"))
    try:
        out = await manager.run("tool.invoked", ctx)
    finally:
        otel_context.detach(token)
        await manager.aclose()
    return dict(out.call.arguments["meta"])


if __name__ == "__main__":
    provider = configure_tracing(service="traced-worker")
    assert provider is not None, "set OTEL_EXPORTER_OTLP_ENDPOINT"
    try:
        meta = asyncio.run(run(Path(sys.argv[1])))
    finally:
        provider.shutdown()  # exports what is batched
    print(json.dumps(meta))
