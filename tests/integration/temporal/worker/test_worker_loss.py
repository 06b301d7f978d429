"""A dead worker is not a failure of the operation (issue 10): kills at every step of a retry cycle.

A worker subprocess runs ``cycle_plugin`` (``task.created`` fails twice, then succeeds;
each retry waits 1 s) and stops at one step; the test SIGKILLs it the moment the step
is reached (told over TCP, not guessed by sleeping), then a second worker takes over.
Whatever the step, the task must end exactly as it does without a kill: the same
attempts, the same two ``activity.failed`` decisions, one successful ``task.created``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from commands import register_all
from harness.domain import TaskSpec, TaskStatus
from harness.hooks.contexts import CommandInvokedContext
from harness.replies import task_ended
from harness.storage.ledger import Ledger
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.worker import build_manager, build_worker, retry_limits
from tests.integration.temporal.plugins import cycle_plugin

from ..conftest import ROOT, assert_replays, worker_env
from .conftest import plugin_env


async def kill_at(step: str, settings, tmp_path, signals, start_work, then=None) -> asyncio.Task:
    """Start worker A, start the work, SIGKILL A when it reaches ``step``; returns the work.

    ``then``: awaited between the step being reached and the kill.
    """
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(
            ["commands:plugin", "tests.integration.temporal.plugins:cycle_plugin"]
        ),
        **plugin_env(settings, tmp_path, signals, step),
    )
    worker_a = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        work = asyncio.create_task(start_work())
        assert await asyncio.wait_for(signals.reached.get(), 30) == step
        if then is not None:
            await then()
    finally:
        worker_a.send_signal(signal.SIGKILL)
        worker_a.wait()
    return work


async def worker_b(client, settings, store, tmp_path, signals, monkeypatch):
    """The worker that takes over: the same plugins, in this process."""
    for name, value in plugin_env(settings, tmp_path, signals, "").items():
        monkeypatch.setenv(name, value)
    manager = build_manager(settings, store.database)
    register_all(manager, models=("offline",))
    cycle_plugin(manager, settings)
    activities = HarnessActivities(
        manager,
        heartbeat_seconds=0.5,
        retry_limits=retry_limits(settings),
        claims=Ledger.over(store.database),  # shared with worker A, as a fleet's workers are
    )
    return manager, build_worker(client, settings, activities)


def summary(log: Path) -> dict[str, object]:
    """What the operations decided, whichever worker ran them, without the killed runs.

    A local step that finished in the killed worker's workflow task runs again in the next
    worker (told ``lost_workers``): the decision the task acted on is that run's, so of
    the runs of one operation's attempt the last counts.
    """
    runs = [json.loads(line) for line in log.read_text().splitlines()]
    last = {(r["point"], r["ctx"]["idempotency_key"], r["attempt"]): r for r in runs}
    lines = list(last.values())

    def posts(point: str) -> list[dict]:
        return [line for line in lines if line["point"] == point]

    def outcome(point: str, key: str | None = None) -> list[tuple[int, object]]:
        return [
            (p["attempt"], p["ctx"]["result"][key] if key else p["ctx"]["result"])
            for p in posts(point)
        ]

    return {
        "created": outcome("task.created.post", "title"),
        "failed": [
            (p["attempt"], p["ctx"]["error_type"], p["ctx"]["result"]["retry"])
            for p in posts("activity.failed.post")
        ],
        "retried": outcome("activity.retried.post"),
    }


def slow_retries(settings):
    """Retries wait the plugin's 1 s (the fixture caps backoff at 0.5 s): time to kill in it."""
    return settings.model_copy(update={"retry_max_backoff_seconds": 1.0})


EXPECTED = {
    "created": [(3, "t")],
    "failed": [(1, "ConnectionError", True), (2, "ConnectionError", True)],  # no Timeout.*
    "retried": [(2, 1.0), (3, 1.0)],
}


@pytest.mark.parametrize("step", ["operation", "failed", "retried", "backoff"])
async def test_a_kill_at_any_step_of_a_retry_cycle_ends_the_task_as_without_it(
    client, settings, store, harness, tmp_path, signals, monkeypatch, step
):
    async def start() -> str:
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T", channel=f"WL-{step}"
        )
        return ref.task_id

    settings = slow_retries(settings)

    async def sleeping() -> None:
        """The retry's timer is started (the dispatch activity completed): kill in the backoff."""
        handle = client.get_workflow_handle(harness.task_id("T", f"WL-{step}"))
        async with asyncio.timeout(10):
            while EventType.EVENT_TYPE_TIMER_STARTED not in [
                e.event_type async for e in handle.fetch_history_events()
            ]:
                await asyncio.sleep(0.02)

    work = await kill_at(
        step, settings, tmp_path, signals, start, then=sleeping if step == "backoff" else None
    )
    task_id = await asyncio.wait_for(work, 10)
    manager, worker = await worker_b(client, settings, store, tmp_path, signals, monkeypatch)
    async with worker:
        async with asyncio.timeout(30):
            while (await harness.snapshot(task_id)).status != TaskStatus.RUNNING:
                await asyncio.sleep(0.05)
        await harness.finish(task_id)
        outcome = await asyncio.wait_for(harness.outcome(task_id), 30)
        await assert_replays(client, [task_id])
    await manager.aclose()

    assert outcome.status == TaskStatus.SUCCEEDED
    assert summary(tmp_path / "points.jsonl") == EXPECTED
    lines = [json.loads(line) for line in (tmp_path / "points.jsonl").read_text().splitlines()]
    rerun = [line for line in lines if line["lost"]]
    if step == "backoff":  # no activity was running: nothing to run again, B goes on
        assert rerun == []
        [last] = [line for line in lines if line["point"] == "task.created.post"]
        assert last["pid"] == os.getpid()
    else:  # the killed activity ran again on B, as the same attempt
        assert rerun and {line["pid"] for line in rerun} == {os.getpid()}
        created = {line["attempt"] for line in rerun if line["point"].startswith("task.created")}
        assert created <= {1}


async def test_without_a_kill_the_cycle_is_the_same(
    client, settings, store, harness, tmp_path, signals, monkeypatch
):
    settings = slow_retries(settings)
    manager, worker = await worker_b(client, settings, store, tmp_path, signals, monkeypatch)
    async with worker:
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="WL-0")
        async with asyncio.timeout(30):
            while (await harness.snapshot(ref.task_id)).status != TaskStatus.RUNNING:
                await asyncio.sleep(0.05)
        await harness.finish(ref.task_id)
        assert (await harness.outcome(ref.task_id)).status == TaskStatus.SUCCEEDED
    await manager.aclose()
    assert summary(tmp_path / "points.jsonl") == EXPECTED


async def test_a_kill_during_a_slash_command_applies_it_once(
    client, settings, store, harness, tmp_path, signals, monkeypatch
):
    holder: dict[str, str] = {}

    async def start_and_command():
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="WL-c")
        holder["task"] = ref.task_id
        return await harness.send_command(
            CommandInvokedContext(
                task=ref, command="effort", args="high", sender="U1", correlation_id="cmd-effort"
            )
        )

    work = await kill_at("command", settings, tmp_path, signals, start_and_command)
    manager, worker = await worker_b(client, settings, store, tmp_path, signals, monkeypatch)
    async with worker:
        result = await asyncio.wait_for(work, 30)
        snapshot = await harness.snapshot(holder["task"])
        await harness.finish(holder["task"])
        await harness.outcome(holder["task"])
        await assert_replays(client, [holder["task"]])
    await manager.aclose()
    assert result.reply == "effort set to `high` (was `medium`)"
    assert snapshot.effort == "high"
    lines = [json.loads(line) for line in (tmp_path / "points.jsonl").read_text().splitlines()]
    done = [line for line in lines if line["point"] == "command.invoked.post"]
    assert [(d["attempt"], d["lost"]) for d in done] == [(1, 1)]  # once, by worker B
    # No retry decision about the command: the kill was no failure of it.
    assert not [
        line
        for line in lines
        if line["point"].startswith("activity.failed")
        and line["ctx"]["failed_operation"] == "command.invoked"
    ]


async def test_an_attempt_cut_off_by_a_worker_shutdown_runs_again_on_the_next_worker(
    client, settings, harness, manager, recorder
):
    from harness.domain import ChannelMessage

    recorder.attach(manager, ["channel.received", "activity.failed"])
    entered, first = asyncio.Event(), [True]

    async def hang_once(ctx):
        if first:
            first.clear()
            entered.set()
            await asyncio.sleep(3600)  # past the 1 s grace: the worker cancels it as it stops

    manager.register("channel.received.pre", hang_once, priority=2)
    activities = HarnessActivities(manager, heartbeat_seconds=0.5)
    async with build_worker(client, settings, activities):
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="WL-s")
        message = ChannelMessage(channel="WL-s", user="U1", text="still here", ts="5.1")
        sending = asyncio.create_task(harness.send_message(ref.task_id, message))
        await asyncio.wait_for(entered.wait(), 10)
    assert not sending.done()  # the worker stopped; the message waits for the next one
    async with build_worker(client, settings, HarnessActivities(manager, heartbeat_seconds=0.5)):
        assert await asyncio.wait_for(sending, 20) == 1
        assert [m.text for m in await harness.transcript(ref.task_id)] == ["still here"]
        await harness.finish(ref.task_id)
        await harness.outcome(ref.task_id)
        await assert_replays(client, [ref.task_id])
    runs = recorder.seen("channel.received.pre")
    assert [(c.attempt, c.lost_workers) for c in runs] == [(1, 0), (1, 1)]
    # The stopping worker said why (not a heartbeat timeout seconds later, not a cancel),
    # as an activity's failure or, for a row that says local, in its marker.
    failures = [
        failure.application_failure_info.type
        async for e in client.get_workflow_handle(ref.task_id).fetch_history_events()
        for failure in (
            [e.activity_task_failed_event_attributes.failure]
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
            else [e.marker_recorded_event_attributes.failure]
            if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
            and e.marker_recorded_event_attributes.HasField("failure")
            else []
        )
    ]
    assert failures == ["WorkerShutdown"]
    assert [
        c for c in recorder.seen("activity.failed.pre") if c.failed_operation == "channel.received"
    ] == []


async def test_a_kill_after_the_post_and_before_completion_leaves_one_message(
    client, settings, store, harness, tmp_path, signals, monkeypatch, slack_api
):
    from harness.domain import ChannelMessage

    channel = "WL-post"
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(["tests.integration.temporal.plugins:posted_plugin"]),
        **plugin_env(settings, tmp_path, signals, "posted"),
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
            TaskSpec(title="t", owner="U1"), team="T", channel=channel, thread="7.0"
        )
        said = ChannelMessage(
            channel=channel, thread="7.0", user="U1", text="say it once", ts="7.1"
        )
        assert await harness.send_message(ref.task_id, said) == 1
        assert await asyncio.wait_for(signals.reached.get(), 30) == "posted"  # posted, not done
    finally:
        worker_a.send_signal(signal.SIGKILL)
        worker_a.wait()
    manager = build_manager(settings, store.database)
    monkeypatch.setenv("HARNESS_TEST_MARKER", str(tmp_path / "marker"))
    recorder_seen: list[tuple[int, int]] = []

    async def note(ctx):
        recorder_seen.append((ctx.attempt, ctx.lost_workers))

    manager.register("channel.sent.pre", note)
    claims = Ledger.over(store.database)  # the claims worker A made (a fleet shares them)
    activities = HarnessActivities(manager, heartbeat_seconds=0.5, claims=claims)
    async with build_worker(client, settings, activities):
        await harness.finish(ref.task_id)
        await asyncio.wait_for(harness.outcome(ref.task_id), 30)
        await assert_replays(client, [ref.task_id])
    await manager.aclose()

    posts = [m for m in slack_api.messages if m["channel"] == channel]
    assert [m["text"] for m in posts] == [  # one message, not two (then how the task ended)
        "(offline) say it once",
        task_ended(f"{ref.task_id} succeeded", subtask=False, task_id=ref.task_id),
    ]
    assert (1, 1) in recorder_seen  # the post ran again after its worker was lost ...
    looked = [
        args
        for method, args in slack_api.calls
        if method == "conversations.replies" and args.get("channel") == channel
    ]
    assert len(looked) == 1 and looked[0]["ts"] == "7.0"  # ... and looked before posting
