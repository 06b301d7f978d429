"""A worker run like a service (issue 11): spans to a collector, Prometheus metrics, JSON logs.

One worker subprocess, configured only through its environment as an operator would
(``OTEL_*``, ``HARNESS_METRICS_ADDRESS``, ``HARNESS_LOG_FORMAT=json``), runs one real
task on the session's dev server; its first ``task.created`` fails as a remote executor
would and is retried. The tests read what it exported: the spans a local OTLP/HTTP
receiver got, two scrapes of ``/metrics`` (before and after the task), and its stderr.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from uuid import uuid4

import aiohttp
import pytest
from temporalio.client import Client

from bot.standin import SlackStandIn
from bot.testing.stack import free_port
from harness.config import Settings
from harness.domain import TaskSpec, TaskStatus
from harness.temporal.client import HarnessClient
from tests.support.otlp_receiver import ReceivedSpan, start_receiver

from .conftest import PAYLOAD_KEY, ROOT, worker_env

ODD_SECRET = "zq-ObservedKey-4Rt8-of-no-known-shape"
HEADER_SECRET = "zq-collector-Header-9Wq2"
SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][\w:]*)(?:\{(?P<labels>.*)\})? (?P<value>\S+)$")
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Prometheus text exposition, parsed: (name, labels) -> value."""
    found: Samples = {}
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if match and not line.startswith("#"):
            labels = frozenset(LABEL.findall(match["labels"] or ""))
            found[match["name"], labels] = float(match["value"])
    return found


def count(found: Samples, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    wanted = set(labels.items())
    return sum(v for (n, series), v in found.items() if n == name and wanted <= series)


@dataclass
class Observed:
    task_id: str
    status: TaskStatus
    before: Samples
    after: Samples
    spans: list[ReceivedSpan]
    collector_headers: list[dict[str, str]]
    stderr: list[str]


@pytest.fixture(scope="module")
async def observed(
    client: Client, temporal_address: str, slack_api: SlackStandIn, tmp_path_factory
) -> AsyncIterator[Observed]:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]  # pydantic-settings init kwarg
        temporal_address=temporal_address,
        task_queue=f"tq-{uuid4()}",
        data_dir=tmp_path_factory.mktemp("observed"),
        payload_key=PAYLOAD_KEY,
        activity_heartbeat_seconds=1.5,
        retry_initial_backoff_seconds=0.05,
        retry_max_backoff_seconds=0.5,
        shutdown_grace_seconds=1,
        sticky_queue_timeout_seconds=1,
        slack_api_url=slack_api.url,  # type: ignore[attr-defined]
    )
    receiver, runner = await start_receiver()
    metrics = f"http://127.0.0.1:{free_port()}/metrics"
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(["tests.integration.temporal.plugins:observed_plugin"]),
        HARNESS_OPENAI_API_KEY=ODD_SECRET,
        HARNESS_LOG_FORMAT="json",
        HARNESS_METRICS_ADDRESS=metrics.removeprefix("http://").removesuffix("/metrics"),
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS=f"x-collector-key={HEADER_SECRET}",
        OTEL_SERVICE_NAME="harness-worker-under-test",
        OTEL_BSP_SCHEDULE_DELAY="100",  # milliseconds: spans leave while the test watches
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    harness = HarnessClient(client, settings)
    try:
        while worker.poll() is None:
            line = await asyncio.to_thread(worker.stderr.readline)  # type: ignore[union-attr]
            lines.append(line)
            if "task queue" in line:
                break
        async with aiohttp.ClientSession() as http:
            before = samples(await (await http.get(metrics)).text())
            ref = await harness.start_task(
                TaskSpec(title="observed", owner="U1"), team="T", channel="OBS"
            )
            await harness.finish(ref.task_id, summary="seen")
            outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 30)
            await receiver.wait_for(lambda spans: any(s.name == "task.complete" for s in spans))
            after = samples(await (await http.get(metrics)).text())
    finally:
        worker.send_signal(signal.SIGTERM)
        _, rest = await asyncio.to_thread(worker.communicate, timeout=15)
        await runner.cleanup()
    yield Observed(
        ref.task_id,
        outcome.status,
        before,
        after,
        receiver.spans,
        receiver.headers,
        [*lines, *rest.splitlines(keepends=True)],
    )


async def test_the_task_ran_through_a_transport_error_and_a_retry(observed):
    assert observed.status == TaskStatus.SUCCEEDED


async def test_spans_of_the_task_reach_the_otlp_collector_with_the_service_name(observed):
    mine = [s for s in observed.spans if s.attributes.get("harness.task_id") == observed.task_id]
    names = {s.name for s in mine}
    assert {"task.created", "activity.failed", "activity.retried", "task.complete"} <= names
    assert {s.resource["service.name"] for s in mine} == {"harness-worker-under-test"}
    # The failed first attempt is a span too, marked as a transport error (status 2: ERROR).
    outcomes = [
        (s.attributes["harness.attempt"], s.attributes["harness.outcome"], s.status_code)
        for s in mine
        if s.name == "task.created"
    ]
    assert (1, "error", 2) in outcomes and (2, "ok", 1) in outcomes
    assert len({s.trace_id for s in mine}) == 1  # one trace per task, across attempts
    assert observed.collector_headers[0]["x-collector-key"] == HEADER_SECRET


async def test_metrics_show_temporal_sdk_series_and_harness_counters_changing(observed):
    before, after = observed.before, observed.after
    temporal = {name for name, _ in after if name.startswith("temporal_")}
    assert {"temporal_request_total", "temporal_workflow_completed_total"} <= temporal
    assert count(after, "temporal_workflow_completed_total") > count(
        before, "temporal_workflow_completed_total"
    )
    for operation in ("task.created", "task.complete"):
        ran = count(after, "harness_operations_total", operation=operation, outcome="ok")
        assert ran - count(before, "harness_operations_total", operation=operation) == 1
    assert (
        count(
            after, "harness_operations_total", operation="task.created", outcome="transport_error"
        )
        == 1
    )
    assert count(after, "harness_transport_errors_total", point="task.created.pre") == 1
    assert count(after, "harness_retries_total", operation="task.created") == 1
    assert count(after, "harness_aborts_total") == 0


async def test_every_log_line_is_json_and_lines_inside_an_operation_carry_its_ids(observed):
    lines = [line for line in observed.stderr if line.strip()]
    records = [json.loads(line) for line in lines]  # every line, or this fails on it
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    seen = [r for r in records if r["logger"] == "tests.observed"]
    assert [r["message"] for r in seen] == [
        "task.created attempt 1 sees [REDACTED]",
        "task.created attempt 2 sees [REDACTED]",
    ]
    assert {r["task_id"] for r in seen} == {observed.task_id}
    assert all(r["correlation_id"] and r["operation"] == "task.created" for r in seen)
    assert any("metrics on http://127.0.0.1:" in r["message"] for r in records)
    text = "".join(lines)
    assert ODD_SECRET not in text and HEADER_SECRET not in text
