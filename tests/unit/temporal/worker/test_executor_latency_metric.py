"""The per-executor latency histogram on the worker's Prometheus endpoint (issue 15, point 4):
the worker's own runtime (``HARNESS_METRICS_ADDRESS``), scraped over HTTP."""

from __future__ import annotations

import asyncio
import socket

import aiohttp

from harness.config import Settings
from harness.domain import TaskRef, ToolCall
from harness.hooks import LATENCY_METRIC, HookManager, register_executor_stats
from harness.hooks.contexts import ToolInvokedContext
from harness.temporal.worker.telemetry import worker_runtime


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def slow(ctx):
    await asyncio.sleep(0.03)
    return None


async def test_each_executor_call_is_a_histogram_sample_with_buckets_past_ten_ms() -> None:
    address = f"127.0.0.1:{free_port()}"
    runtime = worker_runtime(Settings(_env_file=None, metrics_address=address))  # type: ignore[call-arg]
    assert runtime is not None
    manager = HookManager()
    manager.register("tool.invoked.pre", slow)
    register_executor_stats(manager, None, meter=runtime.metric_meter)
    ctx = ToolInvokedContext(
        task=TaskRef(task_id="T1"),
        correlation_id="c",
        call=ToolCall(id="1", name="search", arguments={}),
    )
    for _ in range(3):
        await manager.run("tool.invoked", ctx)
    await manager.aclose()

    async with aiohttp.ClientSession() as session:
        async with asyncio.timeout(15):
            while True:
                async with session.get(f"http://{address}/metrics") as response:
                    text = await response.text()
                if f"{LATENCY_METRIC}_count" in text:
                    break
                await asyncio.sleep(0.2)
    lines = [line for line in text.splitlines() if line.startswith(LATENCY_METRIC)]
    count = next(line for line in lines if line.startswith(f"{LATENCY_METRIC}_count"))
    assert 'decision="pass"' in count and 'kind="local"' in count
    assert 'point="tool.invoked.pre"' in count
    assert count.endswith(" 3")
    under_25 = next(line for line in lines if 'le="25"' in line)
    under_250 = next(line for line in lines if 'le="250"' in line)
    assert under_25.endswith(" 0") and under_250.endswith(" 3")  # 30 ms calls, bucketed finely
