"""How a task ends: failed (gave up), cancelled, finished with sub-tasks still running, and a
sub-task ending by itself once it answered its prompt (issue 26).

Each end runs ``task.state_changed`` and ``task.complete`` through the hooked
activities; a parent never waits forever on a child (issue 3 leftovers).
"""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import CommandResult, SpawnSubtask, SubtaskSpec, TaskSpec, TaskStatus
from harness.hooks import HookAbort
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal.errors import TaskRejected

from .conftest import assert_replays

ENDS = ("task.state_changed", "task.complete")


async def start(harness, channel):
    return await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel=channel)


def mine(recorder, point, task_id):
    return [c for c in recorder.seen(point) if c.task and c.task.task_id == task_id]


async def fails(ctx):
    raise ConnectionError("model endpoint down")


@pytest.mark.parametrize("stop", ["max_attempts", "abort_in_activity_failed_pre"])
async def test_a_task_that_gives_up_runs_the_failed_transition_and_complete(
    harness, manager, worker, recorder, client, stop
):
    recorder.attach(manager, ENDS)
    manager.register("task.created.pre", fails)
    if stop == "abort_in_activity_failed_pre":

        async def budget(ctx):
            if ctx.failed_operation == "task.created":
                raise HookAbort("budget exhausted")

        manager.register("activity.failed.pre", budget)
    ref = await start(harness, f"E-{stop}")
    with pytest.raises(TaskRejected, match=r"task\.created gave up"):
        await harness.outcome(ref.task_id)
    [change] = mine(recorder, "task.state_changed.post", ref.task_id)
    assert (change.from_status, change.result) == (TaskStatus.CREATED, TaskStatus.FAILED)
    assert "task.created gave up" in change.reason
    [complete] = mine(recorder, "task.complete.post", ref.task_id)
    assert complete.status == TaskStatus.FAILED and complete.result.startswith(
        f"{ref.task_id} failed: task.created gave up"
    )
    assert (await harness.snapshot(ref.task_id)).status == TaskStatus.FAILED
    await assert_replays(client, [ref.task_id])


async def test_reporting_a_failure_that_fails_too_stops_without_recursion(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ENDS)
    manager.register("task.created.pre", fails)
    manager.register("task.state_changed.pre", fails)
    ref = await start(harness, "E-twice")
    with pytest.raises(TaskRejected, match=r"task\.created gave up after attempt 4"):
        await harness.outcome(ref.task_id)
    # One task.state_changed operation with its own 4 attempts; nothing re-entered.
    tries = mine(recorder, "task.state_changed.pre", ref.task_id)
    assert [(c.to_status, c.attempt) for c in tries] == [
        (TaskStatus.FAILED, n) for n in (1, 2, 3, 4)
    ]
    assert mine(recorder, "task.complete.pre", ref.task_id) == []
    assert (await harness.snapshot(ref.task_id)).status == TaskStatus.FAILED
    await assert_replays(client, [ref.task_id])


async def test_cancelling_a_task_runs_the_cancelled_transition_and_complete(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ENDS)
    ref = await start(harness, "E-cancel")
    async with asyncio.timeout(20):  # until it is RUNNING, not a guessed 0.3 s
        while (await harness.snapshot(ref.task_id)).status != TaskStatus.RUNNING:
            await asyncio.sleep(0.02)
    await harness.cancel(ref.task_id)
    outcome = await harness.outcome(ref.task_id)
    assert outcome.status == TaskStatus.CANCELLED
    assert outcome.summary == f"{ref.task_id} cancelled"
    changes = mine(recorder, "task.state_changed.post", ref.task_id)
    assert [(c.from_status, c.result) for c in changes] == [
        (TaskStatus.CREATED, TaskStatus.RUNNING),
        (TaskStatus.RUNNING, TaskStatus.CANCELLED),
    ]
    [complete] = mine(recorder, "task.complete.post", ref.task_id)
    assert complete.status == TaskStatus.CANCELLED
    await assert_replays(client, [ref.task_id])


async def spawn_child(harness, manager, ref, prompt: str = ""):
    """A sub-task; with no prompt it has no request to answer, so it runs on purpose until its
    parent ends it (one with a prompt ends by itself once it answered it)."""

    async def subtask(ctx: CommandInvokedContext):
        spec = SubtaskSpec(title=ctx.args, prompt=prompt, requested_by=ctx.sender)
        effects = (SpawnSubtask(subtask=spec),)
        return ctx.model_copy(update={"result": CommandResult(reply="ok", effects=effects)})

    manager.register("command.invoked.in", subtask)
    result = await harness.send_command(
        CommandInvokedContext(task=ref, command="sub-task", args="dig", sender="U1")
    )
    return result.effects[0].subtask.task_id


async def test_finishing_a_parent_cancels_children_still_running_after_the_grace(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ENDS)
    ref = await start(harness, "E-orphan")
    child = await spawn_child(harness, manager, ref)
    await harness.finish(ref.task_id, summary="done", children_grace_seconds=0.2)
    outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 20)
    assert outcome.status == TaskStatus.SUCCEEDED
    assert outcome.summary == (
        f"{ref.task_id} succeeded: done; cancelled 1 running sub-task (sub-task 1)"
    )
    assert (await harness.outcome(child)).status == TaskStatus.CANCELLED
    [child_complete] = mine(recorder, "task.complete.post", child)
    assert child_complete.status == TaskStatus.CANCELLED
    [summary] = (await harness.snapshot(ref.task_id)).subtasks
    assert (summary.task_id, summary.status) == (child, TaskStatus.CANCELLED)
    await assert_replays(client, [ref.task_id, child])


async def test_a_child_ending_within_the_grace_is_waited_for_not_cancelled(
    harness, manager, worker, client
):
    ref = await start(harness, "E-grace")
    child = await spawn_child(harness, manager, ref)
    await harness.finish(ref.task_id, summary="done", children_grace_seconds=10)
    await asyncio.sleep(0.3)
    assert (await harness.snapshot(ref.task_id)).status == TaskStatus.RUNNING  # waiting
    await harness.finish(child, summary="found it")
    outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 5)
    assert outcome.summary == f"{ref.task_id} succeeded: done"
    assert (await harness.outcome(child)).status == TaskStatus.SUCCEEDED


async def test_cancelling_a_parent_cancels_its_running_children(harness, manager, worker, client):
    ref = await start(harness, "E-cancel-parent")
    child = await spawn_child(harness, manager, ref)
    await harness.cancel(ref.task_id)
    outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 20)
    assert outcome.status == TaskStatus.CANCELLED
    assert child.endswith("/sub-1") and "(sub-task 1)" in outcome.summary
    assert (await harness.outcome(child)).status == TaskStatus.CANCELLED
    await assert_replays(client, [ref.task_id, child])


async def test_a_sub_task_that_answered_its_prompt_ends_by_itself(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ENDS)
    ref = await start(harness, "E-answered")
    child = await spawn_child(harness, manager, ref, prompt="hello")
    outcome = await asyncio.wait_for(harness.outcome(child), 20)
    assert (outcome.status, outcome.answer) == (TaskStatus.SUCCEEDED, "(offline) hello")
    assert outcome.summary == f"{child} succeeded: (offline) hello"
    [change] = [
        c for c in mine(recorder, "task.state_changed.post", child) if c.result != "running"
    ]
    assert (change.from_status, change.result) == (TaskStatus.RUNNING, TaskStatus.SUCCEEDED)

    async def done() -> bool:
        [summary] = (await harness.snapshot(ref.task_id)).subtasks
        return summary.status == TaskStatus.SUCCEEDED

    deadline = asyncio.get_running_loop().time() + 10
    while not await done():
        assert asyncio.get_running_loop().time() < deadline, "the parent never saw it end"
        await asyncio.sleep(0.1)
    parent = await harness.snapshot(ref.task_id)
    assert parent.subtasks[0].answer == "(offline) hello"
    assert parent.budget.tokens == outcome.usage.tokens > 0  # the parent itself used none
    # Nothing runs any more: a finish with a long grace ends at once, cancelling nothing.
    await harness.finish(ref.task_id, summary="done", children_grace_seconds=60)
    ended = await asyncio.wait_for(harness.outcome(ref.task_id), 10)
    assert ended.summary == f"{ref.task_id} succeeded: done"
    await assert_replays(client, [ref.task_id, child])
