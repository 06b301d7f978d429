"""Whether an error is worth retrying crosses the activity boundary (real dev server).

The worker keeps the exception; the workflow only sees an ``ApplicationError``. An
error that knows it is permanent (a model name with no provider configured, a
vendor's 4xx) must fail on its first attempt with its own message, while a 502 is
still retried (the workflow's ``activity.failed`` decides, on ``retryable``).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from harness.config import Settings
from harness.domain import ChannelMessage, TaskSpec
from harness.errors import is_retryable
from harness.hooks import HookTransportError
from harness.hooks.errors import HookConfigError, HookTimeoutError, HookValidationError
from harness.models.errors import ModelError
from harness.tools.errors import ToolError, ToolUnavailable
from tests.support.replay_server import ReplayServer

from .conftest import assert_replays


@pytest.fixture
async def replay():
    async with ReplayServer() as server:
        yield server


@pytest.fixture
def settings(settings: Settings, replay) -> Settings:
    """OpenAI-compatible configured (the replay server), Anthropic not."""
    return settings.model_copy(update={"openai_base_url": replay.openai_base_url})


NOTICE = "the model is not answering: "


def posts(slack_api, channel: str) -> list[str]:
    return [
        a["text"]
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == channel
    ]


async def ask(harness, slack_api, model: str, text: str) -> tuple[str, str]:
    """Start a task on ``model``, send it ``text``, return its id and the reply it posts
    (the answer, not a notice that the model is being retried)."""
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U1", model=model), team="T", channel=channel, thread="1.0"
    )
    await harness.send_message(
        ref.task_id, ChannelMessage(channel=channel, thread="1.0", user="U1", text=text, ts="1.1")
    )
    deadline = time.monotonic() + 20
    while True:
        sent = [text for text in posts(slack_api, channel) if not text.startswith(NOTICE)]
        if sent:
            return ref.task_id, sent[-1]
        assert time.monotonic() < deadline, f"no reply in {channel}"
        await asyncio.sleep(0.05)


async def test_a_permanent_error_fails_at_once_and_a_502_is_retried(
    harness, manager, worker, recorder, replay, slack_api, client
):
    recorder.attach(manager, ["activity.failed", "activity.retried"])

    missing, reply = await ask(harness, slack_api, "claude-z", "hello")
    # One human sentence: what is missing and what to set; no operation names, no type names.
    assert reply == (
        "failed: model 'claude-z' needs the anthropic provider; set HARNESS_ANTHROPIC_API_KEY"
    )
    failed = recorder.seen("activity.failed.post")
    assert [(c.attempt, c.retryable) for c in failed] == [(1, False)]
    assert recorder.seen("activity.retried.post") == []

    recorder.trace.clear()
    replay.queue("openai/error_400_effort")
    rejected, reply = await ask(harness, slack_api, "gpt-x", "hello")
    assert reply.startswith("failed: the model provider (openai) rejected the request (HTTP 400): ")
    assert "gave up" not in reply and "ModelError" not in reply
    assert len(replay.requests) == 1  # the vendor saw it once
    assert recorder.seen("activity.retried.post") == []

    recorder.trace.clear()
    replay.queue("openai/error_502_html", "openai/triage_main_loop", "openai/text")
    flaky, reply = await ask(harness, slack_api, "gpt-x", "capital of France?")
    assert reply == "Paris is the capital of France."
    assert [
        (c.attempt, c.retryable, c.error_type) for c in recorder.seen("activity.failed.post")
    ] == [(1, True, "ModelError")]
    assert [c.attempt for c in recorder.seen("activity.retried.post")] == [2]
    assert replay.requests[1].body == replay.requests[2].body  # the same call, again
    # The thread heard why the answer took longer, before it came.
    assert posts(slack_api, channel_of(flaky)) == [
        f"{NOTICE}the model provider (openai) is failing or overloaded (HTTP 502); "
        "retrying, 2 of 4",
        "Paris is the capital of France.",
    ]

    for task_id in (missing, rejected, flaky):
        await harness.finish(task_id)
        await harness.outcome(task_id)
    await assert_replays(client, [missing, rejected, flaky])


def channel_of(task_id: str) -> str:
    return task_id.rsplit("/", 1)[-1]


async def test_a_model_that_keeps_failing_is_said_in_the_thread_then_in_one_sentence(
    harness, worker, replay, slack_api, client
):
    replay.queue(*["openai/error_429"] * 4)
    task_id, _ = await ask(harness, slack_api, "gpt-x", "hello")
    assert len(replay.requests) == 4  # every attempt reached the vendor
    why = "the model provider (openai) is limiting how often it may be called (HTTP 429)"
    assert posts(slack_api, channel_of(task_id)) == [
        f"{NOTICE}{why}; retrying, 2 of 4",  # the first retry is said...
        f"{NOTICE}{why}; retrying, 4 of 4",  # ...and the last; not each one between
        f"failed: {why} (tried 4 times)",
    ]
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])


async def test_a_plan_whose_model_fails_once_is_said_as_a_model_retried(
    harness, worker, replay, slack_api, client
):
    # Writing a plan is a model call: its retry is said as one (issue 27), not left silent.
    replay.queue(
        "openai/triage_plan",
        "openai/error_502_html",
        "openai/plan_two_steps",
        "openai/tool_calls",
        "openai/step_answer",
        "openai/report",
    )
    task_id, _ = await ask(harness, slack_api, "gpt-x", "Greet and compute")
    said = posts(slack_api, channel_of(task_id))
    assert said[0] == (
        f"{NOTICE}the model provider (openai) is failing or overloaded (HTTP 502); retrying, 2 of 4"
    )
    assert replay.requests[1].body == replay.requests[2].body  # the plan asked for again
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (ModelError(provider="openai", kind="config", message="set X"), False),
        (ModelError(provider="openai", kind="status", status=400, message="bad"), False),
        (ModelError(provider="openai", kind="malformed", message="no choices"), False),
        (ModelError(provider="openai", kind="status", status=502, message="gateway"), True),
        (ModelError(provider="openai", kind="status", status=429, message="slow down"), True),
        (ModelError(provider="openai", kind="timeout", message="30s"), True),
        (ToolError(tool="calc", detail="bad"), False),
        (ToolUnavailable(tool="calc", detail="server gone"), True),
        (HookValidationError(point="x.in", executor="e", detail="d"), False),
        (HookConfigError(source="hooks.toml", problems=["p"]), False),
        (HookTransportError(point="x.in", endpoint="http://h", cause="refused"), True),
        (HookTimeoutError(point="x.in", scope="chain", seconds=1.0), True),
        (ValueError("a bug"), True),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, Exception) else str(v),
)
def test_each_error_says_whether_another_attempt_can_help(error, retryable):
    assert is_retryable(error) is retryable
