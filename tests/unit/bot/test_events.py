"""The event router's answers, with a stand-in harness (no Temporal): refusals go to the sender,
and a new thread's task is announced once however many replicas deliver into it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bot.config import BotSettings
from bot.events import EventRouter
from harness.redaction import Redactor
from harness.storage import database_url
from harness.storage.ledger import Ledger
from harness.temporal.errors import TaskRefused, TaskUnavailable
from harness.temporal.models import Delivery

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
    assert posts == [
        (
            "chat.postEphemeral",
            {
                "channel": "C0CHAN1",
                "user": "U0OWNER",
                "thread_ts": "1700000100.000100",
                "text": f"refused: {REASON}",
            },
        )
    ]


async def test_a_refusal_is_redacted_like_every_other_reply(tmp_path):
    posts = await route(
        TaskRefused(task_id="t", reason="not with sig-123 here"), tmp_path, secret="sig-123"
    )
    assert [args["text"] for _, args in posts] == ["refused: not with [REDACTED] here"]


async def test_other_task_errors_are_still_said_in_the_thread(tmp_path):
    posts = await route(TaskUnavailable(task_id="t", reason="down"), tmp_path)
    assert [(how, args["thread_ts"]) for how, args in posts] == [("say", "1700000100.000100")]
    assert posts[0][1]["text"].startswith("the harness is not reachable right now")


class Delivering:
    """The part of the harness the router calls: every message joins one task, the first starts it.

    Each answer waits ``delays[n]`` seconds, so both replicas have read the thread as
    unbound before either binds it, and the test picks which one returns first.
    """

    def __init__(self, task_id: str, delays: tuple[float, float]) -> None:
        self.task_id = task_id
        self.delays = delays
        self.received = []

    async def receive(self, request):
        n = len(self.received)
        self.received.append(request)
        await asyncio.sleep(self.delays[n])
        return Delivery(task_id=self.task_id, started=n == 0, position=n + 1)


@pytest.mark.parametrize(
    ("delays", "said"),
    [
        ((0.02, 0.2), ["started"]),  # the start is announced first: the join says nothing
        ((0.2, 0.02), ["joined", "started"]),  # the join came back first: each said once
    ],
    ids=["start-first", "join-first"],
)
async def test_two_replicas_routing_two_messages_of_one_new_thread_announce_the_task_once(
    database, tmp_path, delays, said
):
    """Two routers (two replicas) on one ledger, two mentions in one unbound thread at once."""
    settings = BotSettings(_env_file=None, local=True, signing_secret="sig", data_dir=tmp_path)
    harness = Delivering("task/T0TEAM1/C0CHAN1", delays)
    routers = [EventRouter(harness, Ledger.over(database), settings, Redactor()) for _ in "ab"]
    bodies = []
    for n in (1, 2):
        body = json.loads((FIXTURES / "message_in_thread.json").read_text())
        body["event_id"] = f"Ev{n}"
        body["event"].update(ts=f"1700000200.00020{n}", text=f"<@UBOTLOCAL> part {n}")
        bodies.append(body)
    recorder, routing = Recorder(), []
    for router, body in zip(routers, bodies, strict=True):  # the first is received first
        routing.append(asyncio.create_task(router.route(body, recorder, recorder, "UBOTLOCAL")))
        await asyncio.sleep(0.01)
    await asyncio.gather(*routing)
    assert len(harness.received) == 2  # both messages reached the task
    kinds = [
        "started"
        if args["text"].startswith("started a task")
        else "joined"
        if "is already running" in args["text"]
        else args["text"]
        for _, args in recorder.posts
    ]
    assert kinds == said
    assert await routers[1].ledger.task_of("T0TEAM1/C0CHAN1/1700000100.000100") == harness.task_id
