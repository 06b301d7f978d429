"""The worker before it works: waiting for Temporal (backing off, stoppable) and its tuning.

``connect`` runs for real against a closed port (refused at once) and a port that
accepts and never answers (an attempt that hangs); the subprocess is ``python -m
harness.worker`` as an operator runs it, stopped with SIGTERM while Temporal is down.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.worker import PollerBehaviorSimpleMaximum

from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.errors import TemporalUnreachable
from harness.temporal.worker import build_worker
from harness.temporal.worker.connect import connect

from ..conftest import free_port, worker_env

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
def closed_address() -> str:
    """A loopback port nothing listens on: every attempt is refused at once."""
    return f"127.0.0.1:{free_port()}"


@pytest.fixture
async def silent_address() -> AsyncIterator[tuple[str, asyncio.Event]]:
    """A port that accepts connections and never answers: an attempt there hangs."""
    reached = asyncio.Event()
    writers: list[asyncio.StreamWriter] = []

    async def hold(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        reached.set()

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    yield f"127.0.0.1:{server.sockets[0].getsockname()[1]}", reached
    for writer in writers:
        writer.close()
    server.close()
    await server.wait_closed()


async def test_waiting_for_temporal_backs_off_and_says_so_rarely(settings, closed_address, caplog):
    caplog.set_level(logging.DEBUG, logger="harness.temporal.worker.connect")
    down = settings.model_copy(update={"temporal_address": closed_address})
    with pytest.raises(TemporalUnreachable) as caught:
        await connect(down, patience=1.2, first_delay=0.05, max_delay=0.2, log_every=0.5)
    attempts = [r.created for r in caplog.records if "did not answer" in r.getMessage()]
    waiting = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    # 0.05, 0.1, 0.2 and then 0.2 again (the maximum), until the patience runs out.
    assert all(g >= d - 0.005 for g, d in zip(gaps, (0.05, 0.1, 0.2, 0.2), strict=False)), gaps
    assert all(g < 0.2 + 0.15 for g in gaps), gaps
    assert 6 <= len(attempts) <= 9, attempts
    assert 2 <= len(waiting) <= 3, waiting  # one line per 0.5 s, not one per attempt
    assert waiting[0].startswith(f"waiting for Temporal at {closed_address}, namespace default, ")
    assert "nothing listens there: is the server up, and is the address right" in waiting[0]
    assert str(caught.value).startswith(
        f"Temporal at {closed_address}, namespace default not reachable in 1.2 s: "
    )
    assert "Connection refused" in caught.value.reason and "nothing listens" in caught.value.reason


async def test_a_stop_ends_connecting_at_once_even_in_the_middle_of_an_attempt(
    settings, silent_address, caplog
):
    address, reached = silent_address
    caplog.set_level(logging.DEBUG, logger="harness.temporal.worker.connect")
    stop = asyncio.Event()
    connecting = asyncio.create_task(
        connect(settings.model_copy(update={"temporal_address": address}), stop=stop)
    )
    await asyncio.wait_for(reached.wait(), 5)
    assert not connecting.done() and not caplog.records  # the first attempt is still waiting
    stop.set()
    started = time.monotonic()
    assert await asyncio.wait_for(connecting, 1) is None
    assert time.monotonic() - started < 0.5


async def test_sigterm_stops_a_worker_still_waiting_for_temporal_with_exit_0(
    settings, closed_address
):
    env = worker_env(settings, HARNESS_TEMPORAL_ADDRESS=closed_address)
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    while worker.poll() is None:
        line = await asyncio.to_thread(worker.stderr.readline)  # type: ignore[union-attr]
        lines.append(line)
        if "waiting for Temporal" in line:
            break
    worker.send_signal(signal.SIGTERM)
    started = time.monotonic()
    _, rest = await asyncio.to_thread(worker.communicate, timeout=10)
    took = time.monotonic() - started
    output = "".join(lines) + rest
    assert worker.returncode == 0, output
    assert took < 2, output
    assert "worker stopping (stop requested while connecting to Temporal)" in output
    assert sum("waiting for Temporal" in line for line in output.splitlines()) == 1, output


async def test_the_tuning_settings_reach_the_worker_and_the_sdk_takes_them(
    client, settings, manager
):
    tuned = settings.model_copy(
        update={
            "worker_max_concurrent_activities": 7,
            "worker_max_concurrent_workflow_tasks": 3,
            "worker_activity_pollers": 2,
            "worker_workflow_pollers": 4,
        }
    )
    worker = build_worker(client, tuned, HarnessActivities(manager))
    config = worker.config()
    assert (config["max_concurrent_activities"], config["max_concurrent_workflow_tasks"]) == (7, 3)
    assert config["activity_task_poller_behavior"] == PollerBehaviorSimpleMaximum(2)
    assert config["workflow_task_poller_behavior"] == PollerBehaviorSimpleMaximum(4)
    async with worker:  # the core validates them when the worker starts polling
        pass
    untuned = build_worker(client, settings, HarnessActivities(manager)).config()
    assert untuned.get("max_concurrent_activities") is None  # the SDK's own default applies
