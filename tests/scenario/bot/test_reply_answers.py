"""A question without buttons is answered by a reply in the task's thread (through the real bot).

The offline model's ``ask:`` triage asks a question with no options: it is posted
saying "reply in this thread to answer"; a watcher's reply is refused (ephemeral,
the question stays open), the owner's reply becomes ``help.decided`` with the text as
the choice and the request goes on. Signed recorded payloads over HTTP, real worker.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.config import STANDIN_PATH
from harness.config import Settings
from harness.domain import TaskStatus
from tests.integration.temporal.conftest import Recorder

from .conftest import TEAM, free_port, serve_bot

OWNER, WATCHER = "U0OWNER", "U0WATCH"
CHANNEL, ROOT = "C0REPLYANS", "1700000700.000100"


@pytest.fixture
def bot_port() -> int:
    return free_port()


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    """The worker posts to this test's bot stand-in, so its posts can be read there."""
    return settings.model_copy(
        update={"slack_api_url": f"http://127.0.0.1:{bot_port}{STANDIN_PATH}"}
    )


@pytest.fixture
async def slack(harness, worker, tmp_path, bot_port):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


def posts(slack, method="chat.postMessage"):
    return [a for m, a in slack.bot.standin.calls if m == method and a.get("channel") == CHANNEL]


async def until(check, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not (found := await _value(check())):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return found


async def _value(found):
    return await found if asyncio.iscoroutine(found) else found


async def reply(slack, user: str, text: str, ts: str):
    return await slack.event(
        "message_in_thread.json",
        channel=CHANNEL,
        thread_ts=ROOT,
        ts=ts,
        user=user,
        event_id=f"Ev{ts}",
        text=text,
    )


async def test_a_deciders_reply_answers_a_question_without_options_and_a_watchers_is_refused(
    slack, harness, manager
):
    recorder = Recorder()
    recorder.attach(manager, ["help.decided"])
    task_id = harness.task_id(TEAM, CHANNEL)
    status, _ = await slack.event(
        "app_mention.json",
        channel=CHANNEL,
        ts=ROOT,
        event_ts=ROOT,
        event_id="EvQ1",
        text="<@UBOTLOCAL> hello",
    )
    assert status == 200
    await until(lambda: len(posts(slack)) >= 2, "the first answer")  # "started a task", reply
    _, text = await slack.slash(
        "/task", f"invite <@{WATCHER}|w> watcher", user=OWNER, channel=CHANNEL
    )
    assert WATCHER in text

    before = len(posts(slack))
    await reply(slack, OWNER, "ask: which colour should the banner be?", "1700000701.1")
    question = (await until(lambda: posts(slack)[before:], "the question"))[-1]
    assert question["text"] == "which colour should the banner be? (reply in this thread to answer)"
    assert question["thread_ts"] == ROOT
    assert [b["type"] for b in question["blocks"]] == ["section", "context"]  # no buttons
    await until(lambda: _waiting(harness, task_id), "waiting")

    asked = len(posts(slack))
    await reply(slack, WATCHER, "red", "1700000702.1")
    refusal = (await until(lambda: posts(slack, "chat.postEphemeral"), "the refusal"))[-1]
    assert refusal["user"] == WATCHER and refusal["thread_ts"] == ROOT
    # Refused on the way in (DESIGN.md "Roles guard every input"), said by the bot to the
    # watcher alone: the message never reaches the task, so the question stays open.
    assert refusal["text"] == (
        "refused: watchers can only look, not talk to this task's agent; "
        f"ask <@{OWNER}> to `/task invite` you as a collaborator"
    )
    assert len(posts(slack)) == asked  # nothing public: the question is still open
    assert (await harness.snapshot(task_id)).status == TaskStatus.WAITING

    await reply(slack, OWNER, "blue", "1700000703.1")
    answer = (await until(lambda: posts(slack)[asked:], "the answer"))[-1]
    assert answer["text"] == "Offline model (offline) read: <@U0OWNER> answered: blue"
    decided = [c.result for c in recorder.seen("help.decided.post")]
    assert [(d.decided_by, d.choice) for d in decided] == [(OWNER, "blue")]
    assert (await harness.snapshot(task_id)).status == TaskStatus.RUNNING
    # The decider's reply is in the thread's record, the watcher's is not; neither became a
    # request of its own.
    texts = [m.text for m in await harness.transcript(task_id)]
    assert texts[-1] == "blue" and "red" not in texts
    await asyncio.sleep(0.3)
    assert len(posts(slack)) == asked + 1


async def _waiting(harness, task_id):
    return (await harness.snapshot(task_id)).status == TaskStatus.WAITING
