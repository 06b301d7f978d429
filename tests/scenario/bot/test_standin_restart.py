"""Issue 26: a restarted local bot still knows what its stand-in posted, so a question asked
before the restart is answered with ``python -m bot.say --click`` after it.

The task is durable (Temporal); the buttons were only the stand-in's. Real bot over HTTP (two
in turn, on one port and one data directory, as ``make run`` restarts it), real worker, real
dev server; ``bot.say`` runs in a subprocess as a person would type it.
"""

from __future__ import annotations

import json
import uuid
from functools import partial

import pytest

from bot.standin.store import FILE_NAME, KEPT

from .conftest import posting_to, serve_bot
from .test_say import say
from .threads import until

OWNER = "U0OWNER"
ASK = 'call ask_human {"question": "which region?", "options": ["eu", "us"]}'
ANSWERED = "Tool results:\n- ask_human: <@U0OWNER> answered: us"


def asked(calls: list, channel: str) -> bool:
    """Whether the question (a post with buttons) reached the stand-in in ``channel``."""
    return any(
        a.get("blocks") and a.get("channel") == channel for m, a in calls if m == "chat.postMessage"
    )


@pytest.fixture
def settings(settings, bot_port):
    return posting_to(settings, bot_port)


async def test_a_question_asked_before_a_restart_is_clicked_after_it(
    harness, worker, tmp_path, bot_port
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    data = tmp_path / "data"
    async for slack in serve_bot(harness, data, port=bot_port):
        where = ("--channel", channel, "--url", slack.url)
        await say(ASK, "--user", OWNER, *where)
        await until(partial(asked, slack.bot.standin.calls, channel), what="the question")
    kept = json.loads((data / FILE_NAME).read_text())
    assert any("which region?" == p["args"].get("text") for p in kept["posts"])
    assert not list(data.glob(f".{FILE_NAME}.*"))  # written whole: no temporary file left

    async for slack in serve_bot(harness, data, port=bot_port):  # the bot restarted
        where = ("--channel", channel, "--url", slack.url)
        status, lines = await say("--click", "2", "--user", OWNER, *where)
        assert status == 0, lines
        assert lines[0] == "clicked 'us' on: which region?"
        assert lines[-1].endswith(ANSWERED.splitlines()[-1])
        posts = [a for m, a in slack.bot.standin.calls if a.get("channel") == channel]
        assert [a["text"] for a in posts if a.get("text", "").startswith("Tool results")] == [
            ANSWERED
        ]
    assert len(json.loads((data / FILE_NAME).read_text())["posts"]) <= KEPT
