"""The ``traceparent`` a remote executor receives names its decision span, as exported (issue 28).

docs/hooks/tracing.md: "The parent span id in traceparent is the decision span's own id". A
process that traces as the worker does (an SDK provider from ``OTEL_*``, spans to a collector)
calls a real JSON-RPC server and a real MCP server over stdio; the span ids they received are
compared with the decision spans a local OTLP receiver got. The MCP SDK opens a client span of
its own under the decision span and used to send that one, with the process's baggage.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from tests.support.otlp_receiver import OtlpReceiver, ReceivedSpan, start_receiver

SERVERS = Path(__file__).with_name("servers")
ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
async def receiver() -> AsyncIterator[OtlpReceiver]:
    received, runner = await start_receiver()
    yield received
    await runner.cleanup()


@pytest.fixture
async def jsonrpc_headers() -> AsyncIterator[tuple[str, list[dict[str, str]]]]:
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
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/hooks", seen
    await runner.cleanup()


def span_of(traceparent: str) -> tuple[str, str]:
    version, trace_id, span_id, flags = traceparent.split("-")
    assert version == "00" and flags == "01"
    return trace_id, span_id


async def test_both_transports_send_the_decision_span_an_otlp_collector_received(
    tmp_path, receiver, jsonrpc_headers
):
    url, headers = jsonrpc_headers
    mcp = json.dumps([sys.executable, str(SERVERS / "mcp_trace.py")])
    config = tmp_path / "hooks.toml"
    config.write_text(
        f'[[executor]]\nname = "remote-mcp"\nkind = "mcp"\npoints = "tool.invoked.pre"\n'
        f"command = {mcp}\ntimeout = 30\npriority = 1\n\n"
        f'[[executor]]\nname = "remote-jsonrpc"\nkind = "jsonrpc"\npoints = "tool.invoked.pre"\n'
        f'url = "{url}"\ntimeout = 30\npriority = 2\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env |= {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
        "OTEL_SERVICE_NAME": "traced-worker",
    }
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVERS / "traced_worker.py"),
        str(config),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(child.communicate(), 120)
    assert child.returncode == 0, err.decode()
    mcp_meta = json.loads(out.decode().splitlines()[-1])

    def decisions(spans: list[ReceivedSpan]) -> dict[str, ReceivedSpan]:
        made = [s for s in spans if "harness.decision" in s.attributes]
        return {str(s.attributes["harness.kind"]): s for s in made}

    spans = await receiver.wait_for(lambda spans: {"mcp", "jsonrpc"} <= set(decisions(spans)))
    received = decisions(spans)
    [operation] = [s for s in spans if s.name == "tool.invoked"]
    for kind, sent in (("jsonrpc", headers[0]["traceparent"]), ("mcp", mcp_meta["traceparent"])):
        span = received[kind]
        assert span.parent_span_id == operation.span_id  # a decision span, under its operation
        assert span_of(sent) == (span.trace_id, span.span_id), kind
    assert "baggage" not in headers[0] and "baggage" not in mcp_meta  # never baggage
