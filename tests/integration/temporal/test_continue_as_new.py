"""Continue-as-new: a task whose history passes its limit starts a fresh run and forgets nothing.

A small ``history_event_limit`` makes a few messages enough to roll the run over
(between requests, as :meth:`Conversation.run_until` does). The new run keeps the
transcript, the model and effort ``/model`` and ``/effort`` set, the participants
``/invite`` added and the agent's own memory; it answers the next message; and every
run's history replays.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.worker import Replayer

from commands import register_all
from harness.config import Settings
from harness.domain import ChannelMessage, Participant, Role, TaskSpec
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal.workflow.request import RequestWorkflow
from harness.temporal.workflow.task import TaskWorkflow

from .conftest import DATA_CONVERTER

CHANNEL = "CCONTINUE"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The smallest limit Settings allows: a run holds about two requests."""
    return settings.model_copy(update={"history_event_limit": 100})


@pytest.fixture
async def manager(manager):
    register_all(manager, models=("offline", "offline/large"))
    return manager


def replies(slack_api) -> list[str]:
    return [
        a["text"]
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == CHANNEL
    ]


async def say(harness, slack_api, task_id: str, text: str, ts: str) -> str:
    before = len(replies(slack_api))
    message = ChannelMessage(channel=CHANNEL, thread="1.0", user="U1", text=text, ts=ts)
    await harness.send_message(task_id, message)
    deadline = time.monotonic() + 20
    while len(replies(slack_api)) == before:
        assert time.monotonic() < deadline, f"no reply to {text!r}"
        await asyncio.sleep(0.05)
    return replies(slack_api)[-1]


async def runs(client, task_id: str, first_run: str) -> list[str]:
    """The run ids of the task, oldest first, following each continue-as-new."""
    chain, run_id = [], first_run
    while run_id:
        chain.append(run_id)
        history = await client.get_workflow_handle(task_id, run_id=run_id).fetch_history()
        last = history.events[-1]
        continued = last.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
        attributes = last.workflow_execution_continued_as_new_event_attributes
        run_id = attributes.new_execution_run_id if continued else ""
    return chain


async def test_a_long_task_continues_as_new_and_keeps_its_state(
    harness, manager, worker, recorder, client, slack_api
):
    recorder.attach(manager, ["context.created", "llm.invoked"])
    ref = await harness.start_task(
        TaskSpec(title="long", owner="U1"), team="T", channel=CHANNEL, thread="1.0"
    )
    task_id = ref.task_id
    first_run = (await client.get_workflow_handle(task_id).describe()).run_id
    for command, args in (
        ("model", "offline/large"),
        ("effort", "high"),
        ("invite", "<@U2|two> collaborator"),
    ):
        result = await harness.send_command(
            CommandInvokedContext(task=ref, command=command, args=args, sender="U1")
        )
        assert not result.reply.startswith(("refused", f"/{command} failed")), result.reply

    sent: list[str] = []
    for n in range(1, 8):
        sent.append(f"note {n}: remember the number {n * 11}")
        await say(harness, slack_api, task_id, sent[-1], ts=f"2.{n}")
        if len(await runs(client, task_id, first_run)) >= 3:
            break
    chain = await runs(client, task_id, first_run)
    assert len(chain) >= 3, f"only {len(chain)} runs after {len(sent)} messages"

    snapshot = await harness.snapshot(task_id)
    assert (snapshot.model, snapshot.effort) == ("offline/large", "high")
    assert Participant(user_id="U2", role=Role.COLLABORATOR) in snapshot.participants
    recorder.trace.clear()
    last = 'call echo {"text": "after the rollover"}'
    reply = await say(harness, slack_api, task_id, last, ts="3.0")
    assert reply == "Tool results:\n- echo: after the rollover"
    # Read after a message: the query answers from the run's own state, which a new run
    # fills from the store in its first activity (a query before that sees it empty).
    assert [m.text for m in await harness.transcript(task_id)] == [*sent, last]
    created = recorder.seen("context.created.pre")[0]  # the turn before the tool ran
    memory = [m.content for m in created.transcript if m.role == "user"]
    assert memory == [*sent, last]  # the agent's own transcript crossed every run
    models = {(c.model, c.effort) for c in recorder.seen("llm.invoked.pre")}
    assert models == {("offline/large", "high")}

    await harness.finish(task_id)
    await harness.outcome(task_id)
    replayer = Replayer(workflows=[TaskWorkflow, RequestWorkflow], data_converter=DATA_CONVERTER)
    for run_id in await runs(client, task_id, first_run):
        history = await client.get_workflow_handle(task_id, run_id=run_id).fetch_history()
        failed = EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
        assert not [e for e in history.events if e.event_type == failed], run_id
        await replayer.replay_workflow(history)
