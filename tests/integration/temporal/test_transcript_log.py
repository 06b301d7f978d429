"""The transcript as a log (issue 13): what a run keeps of it, and moving an old task's over.

A task of the old way kept its transcript as one artefact, rewritten whole at each
message. Its next run (a continue-as-new on today's code, which carries no transcript
reference) appends those messages to the log once, and goes on appending there.
"""

from __future__ import annotations

from harness.domain import ChannelMessage, TaskRef, TaskSpec
from harness.storage import TranscriptStore
from harness.temporal import TASK_WORKFLOW
from harness.temporal.models import TRANSCRIPT, TaskInput, transcript_key
from harness.temporal.workflow.transcript import WINDOW

from .conftest import assert_replays


def said(n: int, channel: str) -> ChannelMessage:
    return ChannelMessage(channel=channel, thread="1.0", user="U1", text=f"old {n}", ts=f"1.{n}")


async def test_a_run_continued_from_the_old_way_moves_the_artefact_into_the_log(
    harness, worker, client, store, settings
):
    channel = "CLOGMOVE"
    task_id = harness.task_id("T", channel)
    old = tuple(said(n, channel) for n in range(1, 4))
    await store.write(transcript_key(task_id), TRANSCRIPT.dump_json(old).decode())
    task = TaskInput(
        ref=TaskRef(task_id=task_id, team="T", channel=channel, thread="1.0"),
        spec=TaskSpec(title="old", owner="U1", model="offline"),
        continued=True,
    )
    await client.start_workflow(TASK_WORKFLOW, task, id=task_id, task_queue=settings.task_queue)
    assert await harness.send_message(task_id, said(4, channel)) == 4
    assert await harness.send_message(task_id, said(2, channel)) == 2  # a repeat of a moved one
    entries = await TranscriptStore(store.database).read(transcript_key(task_id))
    assert [(e.version, ChannelMessage.model_validate_json(e.content).text) for e in entries] == [
        (1, "old 1"),
        (2, "old 2"),
        (3, "old 3"),
        (4, "old 4"),
    ]
    assert len(await store.versions(transcript_key(task_id))) == 1  # never rewritten again
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])


async def test_the_task_keeps_only_a_window_and_the_store_keeps_every_message(
    harness, worker, client
):
    channel = "CLOGWIN"
    ref = await harness.start_task(
        TaskSpec(title="long", owner="U1"), team="T", channel=channel, thread="1.0"
    )
    count = WINDOW + 5
    for n in range(1, count + 1):
        message = ChannelMessage(
            channel=channel, thread="1.0", user="U1", text=f"m{n}", ts=f"2.{n:03d}"
        )
        assert await harness.send_message(ref.task_id, message) == n
    handle = client.get_workflow_handle(ref.task_id)
    window = await handle.query("transcript", result_type=tuple[ChannelMessage, ...])
    assert [m.text for m in window] == [f"m{n}" for n in range(6, count + 1)]
    assert [m.text for m in await harness.transcript(ref.task_id)] == [
        f"m{n}" for n in range(1, count + 1)
    ]
    # A message the window forgot is still taken once: the store knows its ts.
    first = ChannelMessage(channel=channel, thread="1.0", user="U1", text="m1", ts="2.001")
    assert await harness.send_message(ref.task_id, first) == 1
    assert len(await harness.transcript(ref.task_id)) == count
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
