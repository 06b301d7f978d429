"""The progress reporter against the served Web API stand-in: the calls, their order, coalescing.

Real HTTP to a real stand-in (bot.standin.served); the contexts are what the task workflow
hands the channel side (entities[PROGRESS_ENTITY] as JSON).
"""

from __future__ import annotations

import asyncio
import logging
import time

import pytest

from bot.standin import served
from harness.bodies.channel import ChannelBodies
from harness.channels import SlackChannel
from harness.channels.progress import STOP_ACTION
from harness.channels.progress_reporter import ProgressReporter
from harness.channels.streams import Streams
from harness.domain import (
    PROGRESS_ENTITY,
    ChannelMessage,
    Participant,
    Plan,
    PlanStep,
    Role,
    StepOutcome,
    StepProgress,
    TaskRef,
    ToolCall,
    ToolResult,
    TurnProgress,
)
from harness.hooks.contexts import (
    ChannelSentContext,
    LlmInvokedContext,
    PlanCreatedContext,
    StepFinishedContext,
    ToolInvokedContext,
)
from harness.http import AiohttpClient

TASK = TaskRef(task_id="task-T1-C1", team="T1", channel="C1")
OWNER = (Participant(user_id="U1", role=Role.OWNER),)
REQUEST = "1700000000.000100"
TOKEN = "xoxb-progress-test-secret"


def entity(progress: TurnProgress) -> dict[str, str]:
    return {PROGRESS_ENTITY: progress.model_dump_json()}


def turn(**changes) -> TurnProgress:
    base = TurnProgress(
        request_ts=REQUEST, channel="C1", thread=REQUEST, started_at=time.time(), doing="starting"
    )
    return base.model_copy(update=changes)


@pytest.fixture
async def http():
    client = AiohttpClient()
    yield client
    await client.aclose()


@pytest.fixture
async def standin():
    async with served() as found:
        yield found


def channel_of(http, url: str) -> SlackChannel:
    return SlackChannel(http=http, api_url=url, token=TOKEN)


async def placeholder(bodies: ChannelBodies, reporter: ProgressReporter, **changes) -> str:
    """Post the turn's placeholder through the channel.sent body, then its post; the ts."""
    progress = turn(**changes)
    ctx = ChannelSentContext(
        task=TASK,
        participants=OWNER,
        entities=entity(progress),
        idempotency_key="k-placeholder",
        message=ChannelMessage(channel="C1", thread=REQUEST, text="working on it…"),
    )
    posted = await bodies.channel_sent(ctx)
    assert await reporter(posted) is None
    assert posted.result is not None
    return posted.result.ts


def methods(standin) -> list[str]:
    return [m for m, _ in standin.calls]


def tool_post(progress: TurnProgress, name: str = "calculator") -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TASK,
        entities=entity(progress),
        call=ToolCall(id="c1", name=name),
        result=ToolResult(content="4"),
    )


async def final(reporter: ProgressReporter, progress: TurnProgress) -> None:
    ctx = ChannelSentContext(
        task=TASK,
        entities=entity(progress),
        message=ChannelMessage(channel="C1", thread=REQUEST, text="4"),
        result=ChannelMessage(channel="C1", thread=REQUEST, text="4", ts="1700000009.000000"),
    )
    assert await reporter(ctx) is None


async def test_thirty_events_within_one_interval_are_one_or_two_updates_showing_the_last(
    http, standin
):
    channel = channel_of(http, standin.url)
    reporter = ProgressReporter(channel=channel, interval=0.5)
    ts = await placeholder(ChannelBodies(channel=channel), reporter)
    for calls in range(30):
        assert await reporter(tool_post(turn(message_ts=ts, tool_calls=calls))) is None
    await asyncio.sleep(0.7)
    await reporter.coalescer.drain()
    updates = [a for m, a in standin.calls if m == "chat.update"]
    assert 1 <= len(updates) <= 2
    message = standin.live.find("C1", ts)
    assert "30 tool calls" in str(message["blocks"]), message["blocks"]
    assert "ran calculator" in message["text"]
    stop = next(b for b in message["blocks"] if b["type"] == "actions")["elements"][0]
    assert (stop["action_id"], stop["value"]) == (STOP_ACTION, TASK.task_id)
    assert standin.live.reactions[("C1", REQUEST)] == ["eyes"]
    await reporter.aclose()


async def test_the_final_state_is_sent_at_once_sticks_and_marks_the_request(http, standin):
    channel = channel_of(http, standin.url)
    reporter = ProgressReporter(channel=channel, interval=5.0)
    plan = Plan(steps=(PlanStep(title="look <!channel>"), PlanStep(title="answer")))
    ts = await placeholder(ChannelBodies(channel=channel), reporter)
    planned = PlanCreatedContext(
        task=TASK, entities=entity(turn(message_ts=ts)), goal="g", result=plan
    )
    await reporter(planned)
    steps = (StepProgress(title="look <!channel>", state="running"), StepProgress(title="answer"))
    await reporter(
        StepFinishedContext(
            task=TASK,
            entities=entity(turn(message_ts=ts, steps=steps)),
            index=0,
            step=plan.steps[0],
            result=StepOutcome(status="done", summary="seen"),
        )
    )
    done = (
        StepProgress(title="look <!channel>", state="done", note="seen"),
        StepProgress(title="answer", state="done"),
    )
    started = time.monotonic()
    await final(reporter, turn(message_ts=ts, steps=done, state="answered"))
    await reporter.coalescer.drain()
    assert time.monotonic() - started < 2.0  # not held back by the 5 s interval
    await reporter(tool_post(turn(message_ts=ts, tool_calls=9)))  # late and stale: dropped
    await reporter.coalescer.drain()
    message = standin.live.find("C1", ts)
    assert message["text"].startswith(":white_check_mark: done · 2 of 2 steps")
    assert not [b for b in message["blocks"] if b["type"] == "actions"]  # no Stop once over
    shown = str(message["blocks"])
    assert "&lt;!channel&gt;" in shown and "<!channel>" not in shown
    assert "9 tool calls" not in shown
    assert standin.live.reactions[("C1", REQUEST)] == ["white_check_mark"]
    order = [m for m in methods(standin) if m != "assistant.threads.setStatus"]
    assert order[:2] == ["chat.postMessage", "reactions.add"]
    assert order[-2:] == ["reactions.add", "reactions.remove"]
    assert standin.live.statuses[("C1", REQUEST)] == ""  # cleared at the end
    await reporter.aclose()


async def test_a_failed_turn_is_marked_x_and_a_model_call_shows_which_model(http, standin):
    channel = channel_of(http, standin.url)
    reporter = ProgressReporter(channel=channel, interval=0.05)
    ts = await placeholder(ChannelBodies(channel=channel), reporter)
    await reporter.coalescer.drain()
    llm = LlmInvokedContext(
        task=TASK, entities=entity(turn(message_ts=ts)), model="offline", messages=()
    )
    assert await reporter.before(llm) is None
    await asyncio.sleep(0.1)
    await reporter.coalescer.drain()
    assert "thinking with offline" in standin.live.find("C1", ts)["text"]
    assert standin.live.statuses[("C1", REQUEST)] == "is thinking with offline…"
    await final(reporter, turn(message_ts=ts, state="failed", model_calls=1))
    await reporter.coalescer.drain()
    assert standin.live.find("C1", ts)["text"].startswith(":x: failed")
    assert standin.live.reactions[("C1", REQUEST)] == ["x"]
    await reporter.aclose()


async def test_streams_where_offered_append_then_stop_without_chat_update(http, standin):
    channel = channel_of(http, standin.url)
    streams = Streams(enabled=True)
    reporter = ProgressReporter(channel=channel, streams=streams, interval=0.05)
    ts = await placeholder(
        ChannelBodies(channel=channel, streams=streams),
        reporter,
        steps=(StepProgress(title="one"),),
    )
    await reporter.coalescer.drain()
    running = (StepProgress(title="one", state="running"),)
    await reporter(tool_post(turn(message_ts=ts, steps=running)))
    await asyncio.sleep(0.1)
    await reporter.coalescer.drain()
    await final(
        reporter,
        turn(message_ts=ts, state="answered", steps=(StepProgress(title="one", state="done"),)),
    )
    await reporter.coalescer.drain()
    called = methods(standin)
    assert "chat.postMessage" not in called and "chat.update" not in called
    assert (
        called.index("chat.startStream")
        < called.index("chat.appendStream")
        < called.index("chat.stopStream")
    )
    start = dict(standin.calls)["chat.startStream"]
    assert (start["recipient_user_id"], start["recipient_team_id"]) == ("U1", "T1")
    message = standin.live.find("C1", ts)
    assert message["streaming"] is False
    assert message["chunks"] == [
        {"type": "task_update", "id": "step-1", "title": "one", "status": "complete"}
    ]
    assert message["text"].startswith(":white_check_mark: done")
    await reporter.aclose()


async def test_a_workspace_without_streams_gets_posts_and_updates_and_is_not_asked_again(http):
    async with served(streaming=False) as standin:
        channel = channel_of(http, standin.url)
        streams = Streams(enabled=True)
        bodies = ChannelBodies(channel=channel, streams=streams)
        reporter = ProgressReporter(channel=channel, streams=streams, interval=0.05)
        first = await placeholder(bodies, reporter)
        await reporter.coalescer.drain()
        second = await placeholder(bodies, reporter, request_ts="1700000000.000200")
        await reporter.coalescer.drain()
        assert streams.offered is False
        called = methods(standin)
        assert called.count("chat.startStream") == 1  # learned once, per process
        assert called.count("chat.postMessage") == 2
        assert "chat.appendStream" not in called
        for ts in (first, second):
            assert standin.live.find("C1", ts)["edits"] >= 1  # updated in place
        await reporter.aclose()


async def test_contexts_without_a_turn_call_nothing(http, standin):
    reporter = ProgressReporter(channel=channel_of(http, standin.url), interval=0.05)
    await reporter(ToolInvokedContext(task=TASK, call=ToolCall(id="c", name="calculator")))
    await reporter(
        ToolInvokedContext(
            task=TASK,
            entities={PROGRESS_ENTITY: "{not json"},
            call=ToolCall(id="c", name="calculator"),
        )
    )
    await reporter.coalescer.drain()
    assert standin.calls == []
    assert len(reporter.coalescer) == 0


async def test_a_slack_that_fails_never_fails_or_holds_up_the_operation(http, caplog):
    async with served() as standin:
        url = standin.url
    # The stand-in is gone: every call is refused at connect.
    reporter = ProgressReporter(channel=channel_of(http, url), interval=0.05)
    caplog.set_level(logging.WARNING)
    started = time.monotonic()
    for calls in range(5):
        assert (
            await reporter(tool_post(turn(message_ts="1700000001.000000", tool_calls=calls)))
            is None
        )
    await final(reporter, turn(message_ts="1700000001.000000", state="answered"))
    assert time.monotonic() - started < 0.5  # submitting never waits for Slack
    await reporter.coalescer.drain()
    lines = [r.getMessage() for r in caplog.records if "progress" in r.getMessage()]
    assert lines and all("Slack not reached" in line for line in lines)
    assert not any(TOKEN in r.getMessage() for r in caplog.records)
    await reporter.aclose()
