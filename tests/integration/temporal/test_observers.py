"""Observers and parallel validators in a real worker's activities (issue 15, point 6).

The activity (and so the workflow waiting for it) completes while an observer of its
operation is still blocked on an event the test holds; a vetoing observer fails nothing.
"""

from __future__ import annotations

import asyncio

from temporalio.worker import Worker

from harness.hooks import HookAbort
from harness.temporal.activity.hooked import HarnessActivities

from .activity.test_hooked_activity import probe, sample
from .probe import Probe


async def test_an_activity_completes_while_its_observer_is_still_blocked(
    client, task_queue, manager
):
    release, seen = asyncio.Event(), []

    async def blocked(ctx):
        seen.append(ctx.key)
        await release.wait()

    async def vetoes(ctx):
        raise HookAbort("an observer cannot refuse", refusal=True)

    manager.register("persistence.write.pre", blocked, mode="observer")
    manager.register("persistence.write.post", vetoes, mode="observer")
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        async with asyncio.timeout(30):  # were the chain to wait, the activity would time out
            out = await probe(
                client, task_queue, "persistence-write-v1", sample("persistence.write")
            )
    assert "ok" in out, out
    assert seen == ["probe/k"] and not release.is_set()
    release.set()
    assert await manager.observers.drain(timeout=10)
    assert [(s.completed, s.ignored_vetoes) for s in manager.observers.stats()] == [(1, 1), (1, 0)]
    assert manager.aborts == []


async def test_an_activitys_validators_run_at_once(client, task_queue, manager):
    a, b = asyncio.Event(), asyncio.Event()

    def waits_for(mine: asyncio.Event, other: asyncio.Event):
        async def validator(ctx):
            mine.set()
            await other.wait()  # one by one, the first would wait for the second for ever

        return validator

    manager.register("persistence.write.pre", waits_for(a, b), priority=1, mode="validator")
    manager.register("persistence.write.pre", waits_for(b, a), priority=2, mode="validator")
    activities = HarnessActivities(manager)
    async with Worker(
        client, task_queue=task_queue, workflows=[Probe], activities=activities.activities()
    ):
        async with asyncio.timeout(30):
            out = await probe(
                client, task_queue, "persistence-write-v1", sample("persistence.write")
            )
    assert "ok" in out, out
