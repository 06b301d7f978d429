"""Crash test: SIGKILL the worker in the middle of an activity; a new worker finishes the task."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

from harness.domain import ChannelMessage, TaskSpec, TaskStatus
from harness.hooks.contexts import CommandInvokedContext
from harness.storage import TranscriptStore
from harness.storage.ledger import Ledger
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.worker import build_worker

from .conftest import assert_replays, worker_env

ROOT = Path(__file__).resolve().parents[3]


async def wait_for(path: Path, process: subprocess.Popen, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.05)):
        assert process.poll() is None, "worker subprocess died on its own"
        if path.exists() and path.read_text():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{path} not written in {timeout} s")


async def test_sigkill_mid_activity_loses_nothing_and_applies_nothing_twice(
    client, settings, harness, manager, recorder, store, tmp_path
):
    log, marker = tmp_path / "worker-a.jsonl", tmp_path / "marker"
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(["tests.integration.temporal.plugins:crash_plugin"]),
        HARNESS_TEST_LOG=str(log),
        HARNESS_TEST_MARKER=str(marker),
    )
    worker_a = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1", model="offline/m-1"), team="T", channel="K1"
        )
        first = ChannelMessage(channel="K1", user="U1", text="first", ts="1.1")
        assert await harness.send_message(ref.task_id, first) == 1
        command = CommandInvokedContext(
            task=ref, command="model", args="offline/m-2", sender="U1", correlation_id="cmd-model"
        )
        assert (await harness.send_command(command)).reply == "ok"
        blocked = ChannelMessage(channel="K1", user="U1", text="block-me", ts="1.2")
        sending = asyncio.create_task(harness.send_message(ref.task_id, blocked))
        await wait_for(marker, worker_a)
    finally:
        worker_a.send_signal(signal.SIGKILL)
        worker_a.wait()
    key = marker.read_text()
    assert not sending.done()
    before = [json.loads(line) for line in log.read_text().splitlines()]

    recorder.attach(
        manager,
        [
            "task.created",
            "task.state_changed",
            "persistence.write",
            "activity.failed",
            "command.invoked",
        ],
    )
    # Worker B shares A's claims (the database), as a fleet's workers do: a local step A
    # started is told it may have run (lost_workers) when B runs it again.
    activities = HarnessActivities(
        manager, heartbeat_seconds=0.5, claims=Ledger.over(store.database)
    )
    async with build_worker(client, settings, activities):
        assert await asyncio.wait_for(sending, 20) == 2
        assert await harness.send_message(ref.task_id, blocked) == 2  # a client retry
        await harness.finish(ref.task_id)
        outcome = await harness.outcome(ref.task_id)
        snapshot = await harness.snapshot(ref.task_id)
        transcript = await harness.transcript(ref.task_id)
        await assert_replays(client, [ref.task_id])

    assert outcome.status == TaskStatus.SUCCEEDED
    assert snapshot.model == "offline/m-2"
    assert [m.text for m in transcript] == ["first", "block-me"]
    # The store holds each message once: the retried append found its entry's id.
    entries = await TranscriptStore(store.database).read(f"{ref.task_id}/transcript")
    assert [(e.version, json.loads(e.content)["text"]) for e in entries] == [
        (1, "first"),
        (2, "block-me"),
    ]
    # The same attempt ran again on worker B (issue 10): a dead worker is not a failure of
    # the operation, so no attempt was used and activity.failed did not run.
    [retry] = recorder.seen("persistence.write.pre")
    assert (retry.idempotency_key, retry.attempt, retry.lost_workers) == (key, 1, 1)
    assert recorder.seen("persistence.write.post")[0].result.version == 2
    assert recorder.seen("activity.failed.post") == []

    # Worker A did the first part exactly once, worker B the rest, nothing in both.
    def points(entries, point):
        return [e for e in entries if e["point"] == point]

    assert len(points(before, "task.created.post")) == 1
    assert [e["ctx"]["result"] for e in points(before, "task.state_changed.post")] == ["running"]
    assert len(points(before, "command.invoked.post")) == 1
    assert recorder.seen("task.created.pre") == [] and recorder.seen("command.invoked.pre") == []
    changes = [(c.from_status, c.result) for c in recorder.seen("task.state_changed.post")]
    assert changes == [(TaskStatus.RUNNING, TaskStatus.SUCCEEDED)]
