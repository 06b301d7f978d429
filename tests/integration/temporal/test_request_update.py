"""A message for a running task reaches it as an update: no request workflow per message.

Only a request for a task that does not run (the mention that opens it) starts the
request workflow; a thread reply, and a Slack retry of any of them, is routed by
``request.received`` inside the task (issue 13) and added once.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import RequestRoute, TaskRef
from harness.hooks.contexts import RequestReceivedContext
from harness.temporal import REQUEST_WORKFLOW
from harness.temporal.errors import TaskRefused

from .conftest import assert_replays


def request(task_id: str, text: str, *, ts: str, thread: str, sender: str = "U1"):
    return RequestReceivedContext(
        task=TaskRef(task_id=task_id, team="T", channel="QU", thread=thread),
        correlation_id=f"event/{ts}",
        text=text,
        sender=sender,
        channel="QU",
        thread=thread or ts,
        event_id=ts,
        ts=ts,
    )


async def request_workflows(client, task_id: str) -> list[str]:
    await asyncio.sleep(0.3)  # visibility is eventually consistent
    query = f'WorkflowType = "{REQUEST_WORKFLOW}"'
    prefix = f"request/{task_id}/"
    return [w.id async for w in client.list_workflows(query) if w.id.startswith(prefix)]


async def test_thread_replies_and_retries_start_no_workflow_and_are_added_once(
    harness, manager, worker, recorder, client
):
    recorder.attach(manager, ["request.received"])
    task_id = harness.task_id("T", "QU")
    first = await harness.receive(request(task_id, "open it", ts="1.0", thread=""))
    assert (first.task_id, first.started, first.position) == (task_id, True, 1)
    replies = [
        await harness.receive(request(task_id, f"reply {n}", ts=f"1.{n}", thread="1.0"))
        for n in range(1, 4)
    ]
    assert [(d.task_id, d.started, d.position) for d in replies] == [
        (task_id, False, 2),
        (task_id, False, 3),
        (task_id, False, 4),
    ]
    # Slack retries of the mention and of a reply: same positions, routed no second time.
    assert (await harness.receive(request(task_id, "open it", ts="1.0", thread=""))).position == 1
    again = await harness.receive(request(task_id, "reply 2", ts="1.2", thread="1.0"))
    assert (again.started, again.position) == (False, 3)
    routes = [c.result for c in recorder.seen("request.received.post")]
    assert routes == [
        RequestRoute(task_id=task_id, new_task=True, text="open it"),
        *(RequestRoute(task_id=task_id, new_task=False, text=f"reply {n}") for n in range(1, 4)),
    ]
    assert await request_workflows(client, task_id) == [f"request/{task_id}/event/1.0"]
    texts = [m.text for m in await harness.transcript(task_id)]
    assert texts == ["open it", "reply 1", "reply 2", "reply 3"]

    # A refusal still reaches the sender as one (the guard of channel.received).
    with pytest.raises(TaskRefused):
        await harness.receive(request(task_id, "let me in", ts="1.9", thread="1.0", sender="U9"))
    assert len(await harness.transcript(task_id)) == 4
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])
