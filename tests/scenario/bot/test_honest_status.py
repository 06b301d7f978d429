"""Issue 26, honest status: the status view and a stop's summary name the call running now, the
state word agrees with ``now:``, and a stop with nothing left to stop answers its sender only.

Real bot over signed HTTP, real worker and dev server; a tool call (``echo hold``) is held by a
pre executor so the status is read while it really runs, and the post of a stop's summary
can be held too, so a second ``/task stop`` arrives while the first is still ending.
"""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import HOLD, OWNER, Hold, Thread, command_as, snapshot, until, until_async


class HoldSummary:
    """Holds the post of a stopped turn's summary until released."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.held = 0

    async def __call__(self, ctx) -> None:
        if ctx.message.text.startswith("stopped by"):
            self.held += 1
            await self.release.wait()


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    return posting_to(
        settings, bot_port, activity_start_to_close_seconds=60, activity_heartbeat_seconds=0.5
    )


@pytest.fixture
def hold(manager) -> Hold:
    gate = Hold()
    manager.register("tool.invoked.pre", gate, priority=10)
    return gate


@pytest.fixture
def summary(manager) -> HoldSummary:
    gate = HoldSummary()
    manager.register("channel.sent.pre", gate, priority=10)
    return gate


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, hold, summary):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender
    hold.release.set()
    summary.release.set()


async def slash_as_sent(thread: Thread, text: str) -> dict:
    """``/task …`` as the owner: the reply and who sees it (the ack, or the late answer)."""
    key = uuid.uuid4().hex
    command, _, args = text.partition(" ")
    body = thread.slack.slash_body(command, args, user=OWNER, channel=thread.channel, key=key)
    status, raw = await thread.slack.post(
        body, thread.slack.build_headers(body, "application/x-www-form-urlencoded")
    )
    assert status == 200
    await thread.slack.bot.slash.drain()
    late = await thread.slack.responses(key)
    return [r for r in late if r.get("text")][-1] if late else json.loads(raw)


async def test_the_status_and_a_stop_name_the_running_call_and_the_state_agrees(
    slack, harness, hold, summary
):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")

    async def over() -> bool:  # the reply is posted before the turn records its end
        return (await snapshot(slack, thread)).turn is None

    await until_async(over, what="the first turn over")
    status = await thread.slash("/task status")
    assert status.splitlines()[0].endswith("— idle"), status
    assert "now: idle, waiting for a message" in status

    await thread.say(HOLD)
    await hold.until_held()
    status = await thread.slash("/task status")
    assert status.splitlines()[0].endswith("— running"), status
    [now] = [line for line in status.splitlines() if line.startswith("now: ")]
    assert now.startswith("now: running echo · for "), now

    first = await slash_as_sent(thread, "/task stop")
    assert first["response_type"] == "in_channel"  # everyone sees who stopped it
    await until(lambda: summary.held == 1, what="the summary's post")
    again = await slash_as_sent(thread, "/task stop")  # the turn is still ending
    assert (again["text"], again["response_type"]) == (
        "the turn is already being stopped; what it did follows in the thread",
        "ephemeral",
    )
    summary.release.set()
    said = await thread.until_posted("stopped by <@U0OWNER>")
    assert "\nlast: running echo\n" in said, said

    async def ended() -> bool:  # posted first, then the turn is over
        return (await snapshot(slack, thread)).turn is None

    await until_async(ended, what="the stopped turn over")
    assert (await snapshot(slack, thread)).status == "running"
    status = await thread.slash("/task status")
    assert status.splitlines()[0].endswith("— idle"), status
    third = await slash_as_sent(thread, "/task stop")  # nothing runs: said to the sender only
    assert third["response_type"] == "ephemeral"


async def test_after_a_queued_message_is_answered_the_task_reads_idle(slack, harness, hold):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.slash("/task mid-turn queue")
    await thread.say(HOLD)
    await hold.until_held()
    await thread.say("after the hold")
    await until(lambda: (thread.posts(OWNER) or [""])[0].startswith("queued:"), what="the ack")
    queued = await command_as(slack, thread, OWNER, "/task status")
    assert queued.splitlines()[0].endswith("— running") and "queued: 1 message" in queued
    hold.release.set()
    await thread.until_posted("(offline) after the hold")

    async def idle() -> bool:
        return (await snapshot(slack, thread)).turn is None

    await until_async(idle, what="the queued message's turn over")
    status = await thread.slash("/task status")
    assert status.splitlines()[0].endswith("— idle"), status
    assert "now: idle, waiting for a message" in status
