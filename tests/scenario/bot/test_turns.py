"""Issue 14 end to end: stopping a turn, the mid-turn modes, finishing a task, through the real
bot, worker and dev server (the offline model, the bot's own Web API stand-in).

A turn is held mid-way by a pre executor on ``tool.invoked`` that waits for the test (for
``echo hold``), so a stop or a message arrives while the turn really runs; everything
else is the real worker with the built-in and ``commands`` plugins.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import COLLAB, HOLD, OWNER, WATCHER, Hold, Thread, command_as, snapshot, until


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    """The worker posts to this test's bot stand-in; the Hold outlives no activity timeout."""
    return posting_to(
        settings, bot_port, activity_start_to_close_seconds=60, activity_heartbeat_seconds=0.5
    )


@pytest.fixture
def hold(manager) -> Hold:
    gate = Hold()
    manager.register("tool.invoked.pre", gate, priority=10)
    return gate


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, hold):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender
    hold.release.set()


async def test_stop_from_a_collaborator_stops_the_turn_and_a_watcher_is_refused(
    slack, hold, harness
):
    thread = Thread(slack, harness)
    await thread.start("get going")
    await thread.until_posted("(offline) get going")
    await thread.invite()
    await thread.say(f"step one then {HOLD}")
    await hold.until_held()
    assert (await snapshot(slack, thread)).turn is not None

    refused = await command_as(slack, thread, WATCHER, "/task stop")
    assert "refused" in refused, refused
    assert hold.cancelled == 0

    await thread.slash("/task stop", user=COLLAB)
    summary = await thread.until_posted("stopped by <@U0COLLAB>")
    assert "1 model call, 0 tool calls" in summary
    assert "waits for your next message" in summary
    await until(lambda: hold.cancelled == 1, what="the held tool call cancelled")
    assert (await snapshot(slack, thread)).turn is None

    await thread.say("are you still there")  # the task waits for the next message
    await thread.until_posted("(offline) are you still there")
    await thread.slash("/task stop", user=COLLAB)  # nothing runs now: said so, nothing stopped
    assert not any("stopped by" in p for p in thread.posts()[thread.posts().index(summary) + 1 :])


async def test_steer_injects_a_burst_at_the_next_boundary_and_acknowledges_each(
    slack, hold, harness
):
    thread = Thread(slack, harness)
    await thread.start(HOLD)
    await hold.until_held()
    for text in ("also mention apples", "and pears", "and plums"):
        await thread.say(text)
    acks = await until(
        lambda: len(thread.posts(OWNER)) >= 3 and thread.posts(OWNER), what="three acknowledgements"
    )
    assert all(a.startswith("noted: the agent takes this into account") for a in acks)
    hold.release.set()
    reply = await thread.until_posted("Offline model (offline) read:")
    # The three messages reached the model in one turn, in order, before its next call.
    assert "(while you were working, <@U0OWNER> added) and plums" in reply
    transcript = await harness.transcript(thread.task_id)
    assert [m.text for m in transcript][-3:] == ["also mention apples", "and pears", "and plums"]
    await asyncio.sleep(0.5)
    assert len([p for p in thread.posts() if "read:" in p or "(offline)" in p]) == 1


async def test_queue_answers_mid_turn_messages_after_the_turn_in_order(slack, hold, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.slash("/task mid-turn queue")
    assert (await snapshot(slack, thread)).mid_turn == "queue"
    await thread.say(HOLD)
    await hold.until_held()
    await thread.say("first after")
    await thread.say("second after")
    await until(lambda: len(thread.posts(OWNER)) >= 2, what="two acknowledgements")
    assert thread.posts(OWNER)[0].startswith("queued: answered when the current turn ends")
    assert (await snapshot(slack, thread)).queued == 2
    hold.release.set()
    await thread.until_posted("(offline) second after")
    answers = [p for p in thread.posts() if "echo: hold" in p or "after" in p]
    assert [("hold" if "hold" in a else a) for a in answers] == [
        "hold",
        "(offline) first after",
        "(offline) second after",
    ]


async def test_interrupt_stops_the_turn_and_answers_the_new_message(slack, hold, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.slash("/task mid-turn interrupt")
    await thread.say(HOLD)
    await hold.until_held()
    await thread.say("never mind, say hi")
    stopped = await thread.until_posted("stopped by <@U0OWNER> (interrupted by a new message)")
    await thread.until_posted("(offline) never mind, say hi")
    assert thread.posts().index(stopped) < thread.posts().index("(offline) never mind, say hi")
    await until(lambda: hold.cancelled == 1, what="the held call cancelled")
    assert not any("echo: hold" in p for p in thread.posts())


async def test_watchers_cannot_change_the_mid_turn_mode(slack, hold, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    refused = await command_as(slack, thread, COLLAB, "/task mid-turn interrupt")
    assert "refused" in refused, refused
    assert (await snapshot(slack, thread)).mid_turn == "steer"


async def test_finish_ends_the_task_and_a_new_mention_starts_another(slack, hold, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.slash("/task finish all done here")
    await thread.until_posted("Mention me to start a new one here.")
    outcome = await asyncio.wait_for(harness.outcome(thread.task_id), 20)
    assert outcome.status == "succeeded" and outcome.summary.endswith("succeeded: all done here")

    again = Thread(slack, harness)
    again.channel = thread.channel
    await again.start("a fresh start")
    await again.until_posted("(offline) a fresh start")
    fresh = await snapshot(slack, again)
    assert fresh.status == "running" and fresh.ref.thread == again.root


async def test_cancel_stops_the_turn_and_is_for_the_owner_only(slack, hold, harness):
    thread = Thread(slack, harness)
    await thread.start(HOLD)
    await hold.until_held()
    await thread.invite()
    refused = await command_as(slack, thread, COLLAB, "/task cancel")
    assert "refused" in refused, refused
    await thread.slash("/task cancel wrong channel")
    await thread.until_posted("stopped by <@U0OWNER> (the task was cancelled)")
    outcome = await asyncio.wait_for(harness.outcome(thread.task_id), 20)
    assert outcome.status == "cancelled"
    await until(lambda: hold.cancelled == 1, what="the held call cancelled")


class Opened:
    """A pre executor that opens something per call and must hear when the call is abandoned."""

    def __init__(self) -> None:
        self.abandoned: list[str] = []

    async def __call__(self, ctx) -> None:
        return None

    def abandon(self, point: str, ctx, error: BaseException) -> None:
        self.abandoned.append(f"{point}: {type(error).__name__}")


async def test_a_stop_mid_body_tells_the_abandon_observers(slack, hold, harness, manager):
    opened = Opened()
    manager.register("tool.invoked.pre", opened, priority=5)
    body_hold = Hold()
    manager.register("tool.invoked.in", body_hold, priority=1)  # the body runs, held
    hold.release.set()  # the fixture's pre hold lets the call through, to the held body
    thread = Thread(slack, harness)
    await thread.start('call echo {"text": "hold"}')
    await body_hold.until_held()
    await thread.slash("/task stop")
    await thread.until_posted("stopped by <@U0OWNER>")
    await until(lambda: opened.abandoned, what="the abandon observer told")
    assert opened.abandoned == ["tool.invoked.pre: CancelledError"]
