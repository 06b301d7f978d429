"""``request.received`` runs in the worker and decides where a plain message goes."""

from __future__ import annotations

import pytest

from harness.domain import RequestRoute, TaskRef
from harness.hooks.contexts import CommandInvokedContext, RequestReceivedContext
from harness.temporal.errors import TaskRejected

from .conftest import assert_replays


def request(harness, channel, text, *, ts, thread="", bound="", event=""):
    """A message in ``channel``; ``bound`` names the task its thread already belongs to."""
    task_id = bound or harness.task_id("T", channel)
    return RequestReceivedContext(
        task=TaskRef(task_id=task_id, team="T", channel=channel, thread=thread if bound else ""),
        correlation_id=f"event/{event or ts}",
        text=text,
        sender="U1",
        channel=channel,
        thread=thread or ts,
        event_id=event or ts,
        ts=ts,
    )


async def test_a_mention_opens_the_channels_task_and_a_thread_reply_only_reaches_it(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ["request.received", "command.invoked"])
    first = await harness.receive(request(harness, "Q1", "  fix the build ", ts="1.0"))
    task_id = harness.task_id("T", "Q1")
    assert (first.task_id, first.started, first.position) == (task_id, True, 1)
    again = await harness.receive(request(harness, "Q1", "fix the build", ts="1.0"))
    assert (again.started, again.position) == (False, 1)  # same event: routed, added once
    reply = await harness.receive(
        request(harness, "Q1", "also lint", ts="1.5", thread="1.0", bound=task_id)
    )
    assert (reply.task_id, reply.started, reply.position) == (task_id, False, 2)
    routes = [c.result for c in recorder.seen("request.received.post")]
    assert routes == [
        RequestRoute(task_id=task_id, new_task=True, text="fix the build"),
        RequestRoute(task_id=task_id, new_task=False, text="also lint"),
    ]
    assert [m.text for m in await harness.transcript(task_id)] == ["fix the build", "also lint"]
    snapshot = await harness.snapshot(task_id)
    assert snapshot.ref.thread == "1.0" and snapshot.participants[0].user_id == "U1"
    assert snapshot.model == "offline"  # no model named: the first configured one

    recorder.trace.clear()
    await harness.send_command(
        CommandInvokedContext(task=snapshot.ref, command="status", sender="U1")
    )
    assert recorder.operations() == {"command.invoked"}  # commands never run request.received
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id, f"request/{task_id}/event/1.0"])


async def test_an_executor_decides_the_route(harness, manager, worker):
    async def triage(ctx: RequestReceivedContext):
        if ctx.text.startswith("urgent:"):
            route = RequestRoute(
                task_id="task/T/incidents", new_task=True, text=ctx.text[7:].strip()
            )
            return ctx.model_copy(update={"result": route})
        return None

    manager.register("request.received.in", triage, priority=10)
    delivery = await harness.receive(request(harness, "Q2", "urgent: prod is down", ts="2.0"))
    assert (delivery.task_id, delivery.started) == ("task/T/incidents", True)
    assert [m.text for m in await harness.transcript("task/T/incidents")] == ["prod is down"]
    await harness.finish("task/T/incidents")


async def test_a_reply_in_the_thread_of_a_finished_task_does_not_start_a_new_one(harness, worker):
    first = await harness.receive(request(harness, "Q3", "start", ts="3.0"))
    await harness.finish(first.task_id)
    await harness.outcome(first.task_id)
    late = request(harness, "Q3", "one more thing", ts="3.5", thread="3.0", bound=first.task_id)
    with pytest.raises(TaskRejected, match="finished"):
        await harness.receive(late)
