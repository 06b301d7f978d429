"""Messages are guarded like commands: strangers (and by default watchers) never reach the agent."""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import ChannelMessage, Participant, Role, TaskSpec
from harness.temporal.errors import TaskRefused

from .conftest import assert_replays


async def start(harness, channel: str) -> str:
    spec = TaskSpec(title="guarded", owner="U1")
    people = (
        Participant(user_id="U2", role=Role.COLLABORATOR),
        Participant(user_id="U3", role=Role.WATCHER),
    )
    ref = await harness.start_task(
        spec, team="T1", channel=channel, thread="1.0", participants=people
    )
    return ref.task_id


def said(user: str, text: str, ts: str, channel: str) -> ChannelMessage:
    return ChannelMessage(channel=channel, thread="1.0", user=user, text=text, ts=ts)


async def test_a_stranger_and_a_watcher_are_refused_and_nothing_reaches_the_transcript(
    harness, worker, recorder, manager, client
):
    # Everything the agent does after a message arrives (channel.received itself saw it, to refuse).
    recorder.attach(
        manager,
        (
            "system_one.invoked",
            "context.created",
            "llm.invoked",
            "persistence.write",
            "channel.sent",
        ),
    )
    task_id = await start(harness, "CG1")

    with pytest.raises(TaskRefused) as stranger:
        await harness.send_message(task_id, said("U9", "delete everything", "2.1", "CG1"))
    assert "you are not part of this task" in stranger.value.reason
    assert "<@U1>" in stranger.value.reason  # who can invite them
    with pytest.raises(TaskRefused) as watcher:
        await harness.send_message(task_id, said("U3", "do it my way", "2.2", "CG1"))
    assert "watchers can only look" in watcher.value.reason
    with pytest.raises(TaskRefused):  # no sender is nobody's message, not everybody's
        await harness.send_message(task_id, said("", "anonymous", "2.3", "CG1"))

    assert await harness.send_message(task_id, said("U2", "collaborator here", "2.4", "CG1")) == 1
    assert await harness.send_message(task_id, said("U1", "owner here", "2.5", "CG1")) == 2
    transcript = await harness.transcript(task_id)
    assert [m.user for m in transcript] == ["U2", "U1"]
    async with asyncio.timeout(10):  # both accepted messages are answered
        while len(recorder.seen("channel.sent.post")) < 2:
            await asyncio.sleep(0.05)
    seen = " ".join(ctx.model_dump_json() for _, ctx in recorder.trace)
    assert "collaborator here" in seen
    assert "delete everything" not in seen and "do it my way" not in seen
    refusals = [r for r in manager.audit.last(50) if r.kind == "refusal"]
    assert {r.point for r in refusals} == {"channel.received.pre"}

    await harness.finish(task_id)
    assert (await harness.outcome(task_id)).status == "succeeded"
    await assert_replays(client, [task_id])


async def test_watchers_may_talk_when_the_worker_allows_it(
    harness, client, settings, store, task_queue
):
    from harness.temporal.activity.hooked import HarnessActivities
    from harness.temporal.worker import build_manager, build_worker

    allowing = settings.model_copy(update={"watchers_may_talk": True})
    manager = build_manager(allowing, store.database)
    try:
        activities = HarnessActivities(manager, heartbeat_seconds=0.5)
        async with build_worker(client, allowing, activities):
            task_id = await start(harness, "CG2")
            assert await harness.send_message(task_id, said("U3", "watcher", "3.1", "CG2")) == 1
            with pytest.raises(TaskRefused):
                await harness.send_message(task_id, said("U9", "stranger", "3.2", "CG2"))
            await harness.finish(task_id)
            await harness.outcome(task_id)
    finally:
        await manager.aclose()
