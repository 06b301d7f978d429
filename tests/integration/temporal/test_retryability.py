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
from harness.errors import is_retryable
from harness.hooks import HookTransportError
from harness.hooks.contexts import ChannelMessage, TaskSpec
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


async def ask(harness, slack_api, model: str, text: str) -> tuple[str, str]:
    """Start a task on ``model``, send it ``text``, return its id and the reply it posts."""
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    ref = await harness.start_task(TaskSpec(title="t", owner="U1", model=model),
                                   team="T", channel=channel, thread="1.0")  # fmt: skip
    await harness.send_message(
        ref.task_id, ChannelMessage(channel=channel, thread="1.0", user="U1", text=text, ts="1.1")
    )
    deadline = time.monotonic() + 20
    while True:
        sent = [a["text"] for m, a in slack_api.calls
                if m == "chat.postMessage" and a.get("channel") == channel]  # fmt: skip
        if sent:
            return ref.task_id, sent[-1]
        assert time.monotonic() < deadline, f"no reply in {channel}"
        await asyncio.sleep(0.05)


async def test_a_permanent_error_fails_at_once_and_a_502_is_retried(
    harness, manager, worker, recorder, replay, slack_api, client
):
    recorder.attach(manager, ["activity.failed", "activity.retried"])

    missing, reply = await ask(harness, slack_api, "claude-z", "hello")
    assert reply.startswith("failed: system_one.invoked gave up after attempt 1: ModelError")
    assert "set HARNESS_ANTHROPIC_API_KEY" in reply
    failed = recorder.seen("activity.failed.post")
    assert [(c.attempt, c.retryable) for c in failed] == [(1, False)]
    assert recorder.seen("activity.retried.post") == []

    recorder.trace.clear()
    replay.queue("openai/error_400_effort")
    rejected, reply = await ask(harness, slack_api, "gpt-x", "hello")
    assert "gave up after attempt 1" in reply and "HTTP 400 (invalid_request_error)" in reply
    assert len(replay.requests) == 1  # the vendor saw it once
    assert recorder.seen("activity.retried.post") == []

    recorder.trace.clear()
    replay.queue("openai/error_502_html", "openai/triage_main_loop", "openai/text")
    flaky, reply = await ask(harness, slack_api, "gpt-x", "capital of France?")
    assert reply == "Paris is the capital of France."
    assert [(c.attempt, c.retryable, c.error_type) for c in recorder.seen("activity.failed.post")
            ] == [(1, True, "ModelError")]  # fmt: skip
    assert [c.attempt for c in recorder.seen("activity.retried.post")] == [2]
    assert replay.requests[1].body == replay.requests[2].body  # the same call, again

    for task_id in (missing, rejected, flaky):
        await harness.finish(task_id)
        await harness.outcome(task_id)
    await assert_replays(client, [missing, rejected, flaky])


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
