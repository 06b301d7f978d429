"""Workflow-owned retries: activity.failed decides, activity.retried sets the backoff."""

from __future__ import annotations

from datetime import timedelta

import pytest
from temporalio.api.enums.v1 import EventType

from harness.domain import RetryDecision, TaskSpec
from harness.hooks import HookAbort
from harness.temporal.errors import TaskRejected
from harness.temporal.workflow.local_steps import RECORD_PAUSE

from .conftest import assert_replays


async def timers_of(client, task_id: str) -> list[timedelta]:
    """The durations of the timers the task's workflow started (its retry backoffs; not the
    pause that records a local read)."""
    history = await client.get_workflow_handle(task_id).fetch_history()
    timers = [
        e.timer_started_event_attributes.start_to_fire_timeout.ToTimedelta()
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED
    ]
    return [t for t in timers if t != RECORD_PAUSE]


async def start(harness, channel):
    return await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel=channel)


async def test_persistent_failure_gives_up_after_max_attempts_and_fails_the_task(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ["task.created", "activity.failed", "activity.retried"])

    async def always_fails(ctx):
        raise ConnectionError("model endpoint down")

    manager.register("task.created.pre", always_fails)
    ref = await start(harness, "R1")
    with pytest.raises(TaskRejected, match="gave up after 4 attempts: ConnectionError"):
        await harness.outcome(ref.task_id)
    assert [c.attempt for c in recorder.seen("task.created.pre")] == [1, 2, 3, 4]
    failed = recorder.seen("activity.failed.post")
    assert [c.attempt for c in failed] == [1, 2, 3, 4]
    assert [c.result.retry for c in failed] == [True, True, True, False]
    assert [c.attempt for c in recorder.seen("activity.retried.post")] == [2, 3, 4]
    await assert_replays(client, [ref.task_id])


async def test_an_abort_in_activity_failed_pre_gives_up_at_once(harness, manager, worker, client):
    async def fails(ctx):
        raise ConnectionError("down")

    async def stop_retrying(ctx):
        raise HookAbort("budget exhausted")

    manager.register("task.created.pre", fails)
    manager.register("activity.failed.pre", stop_retrying)
    ref = await start(harness, "R2")
    with pytest.raises(TaskRejected, match=r"activity\.failed aborted: .*budget exhausted"):
        await harness.outcome(ref.task_id)
    await assert_replays(client, [ref.task_id])


async def test_an_aborted_operation_is_one_activity_and_never_reaches_activity_failed(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ["task.created", "activity.failed", "activity.retried"])

    async def veto(ctx):
        raise HookAbort("not this one")

    async def always_retry(ctx):
        return ctx.model_copy(update={"result": RetryDecision(retry=True, reason="insist")})

    manager.register("task.created.pre", veto)
    manager.register("activity.failed.in", always_retry, priority=10)
    ref = await start(harness, "R5")
    with pytest.raises(TaskRejected, match="not this one"):
        await harness.outcome(ref.task_id)
    assert [c.attempt for c in recorder.seen("task.created.pre")] == [1]
    # An abort is an answer, not a failure (issue 25): activity.failed runs for failures only.
    assert recorder.seen("activity.failed.pre") == []
    assert recorder.seen("activity.retried.pre") == []
    await assert_replays(client, [ref.task_id])


async def test_executors_choose_the_backoff_and_the_workflow_sleeps_it(
    harness, manager, worker, client
):
    failures = [1]

    async def fails_once(ctx):
        if failures:
            failures.pop()
            raise ConnectionError("blip")

    async def slower(ctx):
        return ctx.model_copy(update={"result": 0.35})  # within the 0.5 s maximum

    manager.register("task.created.pre", fails_once)
    manager.register("activity.retried.in", slower, priority=10)
    ref = await start(harness, "R3")
    await harness.finish(ref.task_id)
    assert (await harness.outcome(ref.task_id)).status == "succeeded"
    timers = await timers_of(client, ref.task_id)
    assert timers == [timedelta(seconds=0.35)]
    await assert_replays(client, [ref.task_id])


async def test_a_non_retryable_failure_is_not_retried(harness, manager, worker, recorder, client):
    recorder.attach(manager, ["task.created"])

    async def refuse(ctx):
        raise HookAbort("no such project", refusal=True)

    manager.register("task.created.pre", refuse)
    ref = await start(harness, "R4")
    with pytest.raises(TaskRejected, match=r"refused at task\.created\.pre .*no such project"):
        await harness.outcome(ref.task_id)
    assert [c.attempt for c in recorder.seen("task.created.pre")] == [1]


TEN_DAYS = 10 * 24 * 3600.0


@pytest.mark.parametrize("where", ["activity.failed", "activity.retried"])
async def test_a_decided_delay_is_capped_at_the_maximum_and_audited(
    harness, manager, worker, client, settings, where
):
    failures = [1]

    async def fails_once(ctx):
        if failures:
            failures.pop()
            raise ConnectionError("blip")

    async def sleepy_failed(ctx):
        decision = ctx.result.model_copy(update={"backoff_seconds": TEN_DAYS})
        return ctx.model_copy(update={"result": decision})

    async def sleepy_retried(ctx):
        return ctx.model_copy(update={"result": TEN_DAYS})

    manager.register("task.created.pre", fails_once)
    if where == "activity.failed":
        manager.register("activity.failed.post", sleepy_failed)
    else:
        manager.register("activity.retried.post", sleepy_retried, priority=2**62)
    ref = await start(harness, f"R-cap-{where}")
    await harness.finish(ref.task_id)
    assert (await harness.outcome(ref.task_id)).status == "succeeded"
    timers = await timers_of(client, ref.task_id)
    assert timers == [timedelta(seconds=settings.retry_max_backoff_seconds)]
    [capped] = [r for r in manager.audit.last(50) if r.kind == "capped"]
    assert capped.point == f"{where}.post" and capped.task_id == ref.task_id
    assert f"capped at {settings.retry_max_backoff_seconds:g}s" in capped.reason
    await assert_replays(client, [ref.task_id])


async def test_an_executor_cannot_retry_past_the_maximum_attempts(
    harness, manager, worker, recorder, client, settings
):
    recorder.attach(manager, ["task.created"])

    async def always_fails(ctx):
        raise ConnectionError("down for good")

    async def never_give_up(ctx):
        return ctx.model_copy(update={"result": RetryDecision(retry=True, backoff_seconds=0.01)})

    manager.register("task.created.pre", always_fails)
    manager.register("activity.failed.in", never_give_up, priority=1)
    ref = await start(harness, "R-forever")
    with pytest.raises(TaskRejected, match="gave up after 4 attempts \\(the most allowed\\)"):
        await harness.outcome(ref.task_id)
    assert len(recorder.seen("task.created.pre")) == settings.retry_max_attempts == 4
    assert [r.kind for r in manager.audit.last(50)].count("capped") == 1
    await assert_replays(client, [ref.task_id])
