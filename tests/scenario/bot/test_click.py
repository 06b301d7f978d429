"""``python -m bot.say --click N`` answers a question's buttons as Slack would, end to end.

A task on the offline model asks a question with two options (the worker posts it
with buttons to this bot's stand-in); ``bot.say`` in a subprocess reads it back,
clicks, and the waiting task goes on. Real bot, real worker, real dev server.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from bot.config import STANDIN_PATH
from harness.config import Settings
from harness.programs import program

from .conftest import free_port, serve_bot
from .test_say import say

OWNER, STRANGER = "U0OWNER", "U0STRANGER"
ASK = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'
ANSWERED = "Tool results:\n- ask_human: <@U0OWNER> answered: staging"


@pytest.fixture
def bot_port() -> int:
    return free_port()


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    """The worker posts to this test's bot stand-in, where ``bot.say`` reads the question."""
    return settings.model_copy(
        update={"slack_api_url": f"http://127.0.0.1:{bot_port}{STANDIN_PATH}"}
    )


@pytest.fixture
async def slack(harness, worker, tmp_path, bot_port):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def until(check, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return found


async def test_a_waiting_task_goes_on_after_bot_say_click(slack, harness):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    where = ("--channel", channel, "--url", slack.url)
    status, lines = await say("--click", "1", "--user", OWNER, *where)
    assert (status, lines) == (
        1,
        [
            f"no open question with buttons in {channel} (an answered, timed-out or "
            "stopped one has none left; only the local stand-in keeps them: is the bot in "
            "local mode?)"
        ],
    )

    status, lines = await say(ASK, "--user", OWNER, *where)
    [shown] = [line for line in lines if "(answer: `" in line]
    hint = shown.split("(answer: `", 1)[1].split("`", 1)[0]
    # the interpreter that ran it, so the hint works with no venv active (issue 26)
    assert hint == f"{program('bot.say')} --click N"

    def question():
        return [
            a
            for m, a in slack.bot.standin.calls
            if m == "chat.postMessage" and a.get("channel") == channel and a.get("blocks")
        ]

    [asked] = await until(question, "the question")
    assert asked["text"] == "which environment?"
    status, lines = await say("--click", "3", "--user", OWNER, *where)
    assert (status, lines) == (1, ["--click takes 1 to 2: [1] staging [2] prod"])

    # Someone without a role clicks: refused, to them only; the question stays open.
    status, lines = await say("--click", "2", "--user", STRANGER, *where)
    assert status == 0
    assert lines[0] == "clicked 'prod' on: which environment?"
    assert lines[1].startswith(f"only you see (in thread {asked['thread_ts']}): refused: ")

    status, lines = await say("--user", OWNER, *where, typed=hint.replace(" N", " 1"))
    assert status == 0
    assert lines[0] == "clicked 'staging' on: which environment?"
    assert "\n".join(lines[1:]) == f"bot in thread {asked['thread_ts']}: {ANSWERED}"
    texts = [
        a["text"]
        for m, a in slack.bot.standin.calls
        if m == "chat.postMessage" and a.get("channel") == channel
    ]
    assert texts[-1] == ANSWERED and texts.count(ANSWERED) == 1
