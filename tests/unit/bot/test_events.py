"""The event router's answers, with a stand-in harness (no Temporal): refusals go to the sender."""

from __future__ import annotations

import json
from pathlib import Path

from bot.config import BotSettings
from bot.events import EventRouter
from bot.ledger import Ledger
from harness.db import database_url
from harness.hooks import Redactor
from harness.temporal.errors import TaskRefused, TaskUnavailable

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "slack"
REASON = "you are not part of this task; ask <@U0OWNER> to `/task invite` you"


class Refusing:
    """The part of the harness the router calls, refusing or failing every message."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.received = []

    async def receive(self, request):
        self.received.append(request)
        raise self.error


class Recorder:
    """``say`` and the Web API client, recording what would be posted."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict]] = []

    async def __call__(self, **message):
        self.posts.append(("say", message))

    async def chat_postEphemeral(self, **args):
        self.posts.append(("chat.postEphemeral", args))


async def route(error: Exception, tmp_path, secret: str = "sig") -> list[tuple[str, dict]]:
    settings = BotSettings(_env_file=None, local=True, signing_secret=secret, data_dir=tmp_path)
    ledger = Ledger(database_url("", tmp_path / "ledger.sqlite3"))
    router = EventRouter(Refusing(error), ledger, settings, Redactor(secrets=[secret]))
    body = json.loads((FIXTURES / "app_mention.json").read_text())
    recorder = Recorder()
    try:
        await router.route(body, recorder, recorder, "UBOTLOCAL")
    finally:
        await ledger.aclose()
    return recorder.posts


async def test_a_refusal_is_posted_only_to_its_sender_in_the_thread(tmp_path):
    posts = await route(TaskRefused(task_id="task/T0TEAM1/C0CHAN1", reason=REASON), tmp_path)
    assert posts == [("chat.postEphemeral", {
        "channel": "C0CHAN1", "user": "U0OWNER", "thread_ts": "1700000100.000100",
        "text": f"refused: {REASON}",
    })]  # fmt: skip


async def test_a_refusal_is_redacted_like_every_other_reply(tmp_path):
    posts = await route(TaskRefused(task_id="t", reason="not with sig-123 here"), tmp_path,
                        secret="sig-123")  # fmt: skip
    assert [args["text"] for _, args in posts] == ["refused: not with [REDACTED] here"]


async def test_other_task_errors_are_still_said_in_the_thread(tmp_path):
    posts = await route(TaskUnavailable(task_id="t", reason="down"), tmp_path)
    assert [(how, args["thread_ts"]) for how, args in posts] == [("say", "1700000100.000100")]
    assert posts[0][1]["text"].startswith("the harness is not reachable right now")
