"""A task's life on a real dev server, seen by a recording executor on every operation it runs."""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import (
    ChannelMessage,
    CommandResult,
    Role,
    SetModel,
    SpawnSubtask,
    SubtaskSpec,
    TaskSpec,
    TaskStatus,
)
from harness.hooks import HookAbort
from harness.hooks.contexts import (
    ActivityFailedContext,
    ActivityRetriedContext,
    CommandInvokedContext,
    HeartbeatTickContext,
    PersistenceWriteContext,
)
from harness.storage import TranscriptStore
from harness.temporal.errors import TaskRejected

from .conftest import assert_replays

OPERATIONS = (
    "task.created",
    "task.state_changed",
    "task.complete",
    "heartbeat.tick",
    "persistence.write",
    "persistence.read",
    "subtask.spawned",
    "activity.failed",
    "activity.retried",
    "command.invoked",
)


def subtask_body(ctx: CommandInvokedContext):
    return ctx.model_copy(
        update={
            "result": CommandResult(
                reply=f"spawning {ctx.args}",
                effects=(
                    SpawnSubtask(subtask=SubtaskSpec(title=ctx.args, requested_by=ctx.sender)),
                ),
            )
        }
    )


async def commands(ctx: CommandInvokedContext):
    """A stand-in for issue 4's command bodies: /sub-task and /model only."""
    if ctx.command == "sub-task":
        return subtask_body(ctx)
    if ctx.command == "model":
        effects = (SetModel(model=ctx.args),)
        return ctx.model_copy(update={"result": CommandResult(reply="ok", effects=effects)})
    return None


async def test_task_lifecycle_runs_every_worker_operation_with_correct_contexts(
    harness, manager, worker, recorder, store, client
):
    recorder.attach(manager, OPERATIONS)
    manager.register("command.invoked.in", commands)
    failures = {"persistence.write": 1}

    async def fail_first_write(ctx: PersistenceWriteContext):
        if failures["persistence.write"]:
            failures["persistence.write"] -= 1
            raise RuntimeError("disk hiccup")

    slow_once = asyncio.Event()

    async def slow_first_transition(ctx):
        if not slow_once.is_set():
            slow_once.set()
            await asyncio.sleep(0.8)  # longer than the 0.5 s heartbeat interval

    manager.register("persistence.write.pre", fail_first_write)
    manager.register("task.state_changed.pre", slow_first_transition)

    spec = TaskSpec(title="write a haiku", owner="U1", model="offline/m-1")
    ref = await harness.start_task(
        spec, team="T1", channel="C1", thread="1.0", correlation_id="corr-1"
    )
    task_id = ref.task_id
    assert task_id == harness.task_id("T1", "C1") and ref.thread == "1.0"

    message = ChannelMessage(channel="C1", thread="1.0", user="U1", text="hello", ts="1.1")
    assert await harness.send_message(task_id, message) == 1
    assert await harness.send_message(task_id, message) == 1  # same ts: not added twice

    result = await harness.send_command(
        CommandInvokedContext(
            task=ref,
            command="sub-task",
            args="research",
            sender="U1",
            role=Role.OWNER,
            correlation_id="cmd-1",
        )
    )
    assert result.reply == "spawning research as sub-task 1"
    [effect] = result.effects
    assert effect.subtask.task_id == f"{task_id}/sub-1"
    snapshot = await harness.snapshot(task_id)
    assert snapshot.status == TaskStatus.RUNNING
    assert snapshot.model == "offline/m-1"
    [child] = snapshot.subtasks
    assert child.task_id == f"{task_id}/sub-1"
    assert child.status == TaskStatus.RUNNING

    await harness.finish(child.task_id, summary="found it")
    await harness.finish(task_id, summary="all done")
    outcome = await harness.outcome(task_id)
    assert outcome.status == TaskStatus.SUCCEEDED
    assert outcome.summary == f"{task_id} succeeded: all done"
    final = await harness.snapshot(task_id)
    assert [c.status for c in final.subtasks] == [TaskStatus.SUCCEEDED]

    assert recorder.operations() == set(OPERATIONS)

    def mine(point):
        return [c for c in recorder.seen(point) if c.task and c.task.task_id == task_id]

    assert [c.result for c in mine("task.created.post")] == [spec]
    transitions = [(c.from_status, c.result) for c in mine("task.state_changed.post")]
    assert transitions == [
        (TaskStatus.CREATED, TaskStatus.RUNNING),
        (TaskStatus.RUNNING, TaskStatus.SUCCEEDED),
    ]
    assert all(c.correlation_id == "corr-1" for c in mine("task.state_changed.pre"))
    [complete] = mine("task.complete.post")
    assert complete.status == TaskStatus.SUCCEEDED and complete.correlation_id == "corr-1"
    # The other read is the worker's loop defaults, read when the first message is answered.
    [read] = [c for c in mine("persistence.read.post") if c.key.endswith("/transcript")]
    assert read.key == f"{task_id}/transcript" and read.result.version == 0

    writes = mine("persistence.write.pre")
    assert [c.attempt for c in writes] == [1, 2]
    assert len({c.idempotency_key for c in writes}) == 1 and writes[0].idempotency_key
    assert all(c.correlation_id == "1.1" for c in writes)
    [failed] = mine("activity.failed.post")
    assert isinstance(failed, ActivityFailedContext)
    assert (failed.failed_operation, failed.attempt, failed.error_type) == (
        "persistence.write",
        1,
        "RuntimeError",
    )
    assert failed.correlation_id == "1.1" and failed.result.retry
    [retried] = mine("activity.retried.post")
    assert isinstance(retried, ActivityRetriedContext)
    assert retried.attempt == 2 and retried.result == failed.result.backoff_seconds
    assert 0 < retried.result <= 0.5

    ticks = mine("heartbeat.tick.post")
    assert ticks and all(isinstance(t, HeartbeatTickContext) for t in ticks)
    assert ticks[0].detail == "task.state_changed" and ticks[0].correlation_id == "corr-1"
    assert ticks[0].result is True and ticks[0].elapsed_seconds >= 0.4

    [spawned] = mine("subtask.spawned.post")
    assert spawned.result.task_id == child.task_id and spawned.correlation_id == "cmd-1"
    [command] = mine("command.invoked.pre")
    assert command.role == Role.OWNER and command.snapshot.title == "write a haiku"
    created = recorder.seen("task.created.post")
    assert [c.task.parent_id for c in created if c.task.task_id == child.task_id] == [task_id]

    # One row per message in the transcript log (the retried write appended it once), and
    # no whole-transcript artefact any more.
    stored = await TranscriptStore(store.database).read(f"{task_id}/transcript")
    assert [ChannelMessage.model_validate_json(e.content).text for e in stored] == ["hello"]
    assert await store.versions(f"{task_id}/transcript") == ()
    assert await assert_replays(client, [task_id, child.task_id]) == 2


async def test_a_refused_command_changes_nothing_and_a_finished_task_rejects_updates(
    harness, manager, worker, client
):
    manager.register("command.invoked.in", commands)

    async def guard(ctx: CommandInvokedContext):
        if ctx.role is not Role.OWNER and ctx.args:
            raise HookAbort("only the owner may change the model", refusal=True)

    manager.register("command.invoked.pre", guard, priority=100)
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U1", model="offline/m-1"), team="T", channel="C2"
    )
    stranger = CommandInvokedContext(
        task=ref, command="model", args="offline/m-2", sender="U9", role=Role.OWNER
    )  # the claimed role is ignored
    refused = await harness.send_command(stranger)
    assert refused.reply == "refused: only the owner may change the model"
    assert refused.effects == () and not refused.public
    assert (await harness.snapshot(ref.task_id)).model == "offline/m-1"
    owner = stranger.model_copy(update={"sender": "U1"})
    assert (await harness.send_command(owner)).reply == "ok"
    assert (await harness.snapshot(ref.task_id)).model == "offline/m-2"
    unknown = owner.model_copy(update={"command": "nope"})
    said = (await harness.send_command(unknown)).reply
    assert said == "`/task nope` is not a command here; `/task help` lists them"  # as the bot says

    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    with pytest.raises(TaskRejected, match="has finished"):
        await harness.send_command(owner)
    await assert_replays(client, [ref.task_id])
