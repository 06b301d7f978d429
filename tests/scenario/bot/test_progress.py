"""Issue 14 end to end: a turn's live progress message, through the real bot, worker and dev
server, across a worker restart.

A three-step plan runs on the offline model; its second step's tool call is held by a
pre executor while the worker is stopped and another started. The same progress message
(its ``ts`` is workflow state) is updated in place throughout, coalesced, and ends with
every step done; the person's message gets its reactions.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.say.clicks import is_progress
from commands import register_all
from harness.channels.progress import PROGRESS_BLOCK, STOP_ACTION
from harness.config import Settings
from harness.hooks import points_at
from harness.temporal.worker import build_manager, serve

from .conftest import MODELS, posting_to, serve_bot
from .threads import Hold, Thread, until

PLAN = 'plan: look around; call echo {"text": "hold"}; wrap up'


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    return posting_to(
        settings,
        bot_port,
        progress="on",
        progress_interval_seconds=0.3,
        activity_start_to_close_seconds=60,
        activity_heartbeat_seconds=0.5,
    )


@pytest.fixture
async def slack(harness, tmp_path, bot_port):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


class Events:
    """Counts what the progress reporter is shown (every point it watches)."""

    def __init__(self) -> None:
        self.count = 0

    async def __call__(self, ctx) -> None:
        if "progress" in ctx.entities:
            self.count += 1


def manager_with(settings, store, hold: Hold, events: Events):
    manager = build_manager(settings, store.database)
    register_all(manager, models=MODELS)
    manager.register("tool.invoked.pre", hold, priority=10)
    for phase in ("post", "pre"):  # where the reporter watches: the catalogue rows' progress
        for point in points_at(phase, lambda e: e.progress):
            manager.register(point, events)
    return manager


def calls(slack, method: str, channel: str) -> list[dict]:
    return [a for m, a in slack.bot.standin.calls if m == method and a.get("channel") == channel]


def plan_of(args: dict) -> str:
    """The plan's lines of a progress message (``""`` before it has a plan)."""
    return next(
        (
            b["text"]["text"]
            for b in args.get("blocks") or []
            if b.get("block_id") == f"{PROGRESS_BLOCK}-plan"
        ),
        "",
    )


def stop_button(args: dict) -> bool:
    return any(
        e.get("action_id") == STOP_ACTION
        for b in args.get("blocks") or []
        for e in b.get("elements") or []
        if isinstance(e, dict)
    )


async def _before_restart(slack, harness, hold_a: Hold) -> tuple[Thread, str]:
    """Start the plan, until its tool call is held; the thread and its progress message."""
    thread = Thread(slack, harness)
    await thread.start(PLAN)
    await hold_a.until_held()
    posted = [a for a in calls(slack, "chat.postMessage", thread.channel) if is_progress(a)]
    assert len(posted) == 1 and stop_button(posted[0])
    progress_ts = await until(
        lambda: next((m["ts"] for m in slack.bot.standin.messages if is_progress(m)), ""),
        what="the message's ts",
    )
    await until(
        lambda: any(
            plan_of(u).count(":white_check_mark:") == 1
            for u in calls(slack, "chat.update", thread.channel)
        ),
        what="an update showing the first step done",
    )

    return thread, progress_ts


async def test_a_plan_shows_live_coalesced_progress_in_one_message_across_a_worker_restart(
    client, settings, store, harness, slack
):
    events, hold_a = Events(), Hold()
    stop_a = asyncio.Event()
    manager_a = manager_with(settings, store, hold_a, events)
    worker_a = asyncio.create_task(serve(settings, stop_a, client=client, manager=manager_a))
    try:
        thread, progress_ts = await _before_restart(slack, harness, hold_a)
    except BaseException:
        hold_a.release.set()
        raise
    finally:
        stop_a.set()  # the worker stops mid-turn, the held call with it
        await asyncio.wait_for(worker_a, 30)
    before_restart = len(calls(slack, "chat.update", thread.channel))
    hold_b = Hold()
    hold_b.release.set()
    stop_b = asyncio.Event()
    manager_b = manager_with(settings, store, hold_b, events)
    worker_b = asyncio.create_task(serve(settings, stop_b, client=client, manager=manager_b))
    try:
        answer = await thread.until_posted("3. wrap up — done")
        assert "2. call echo" in answer
        final = await until(
            lambda: [
                u
                for u in calls(slack, "chat.update", thread.channel)
                if u.get("text", "").startswith(":white_check_mark:")
            ],
            what="the final rendering",
        )
    finally:
        stop_b.set()
        await asyncio.wait_for(worker_b, 30)

    updates = calls(slack, "chat.update", thread.channel)
    assert len(updates) > before_restart  # the new worker went on updating...
    assert {u["ts"] for u in updates} == {progress_ts}  # ...the same message, never another
    assert len([a for a in calls(slack, "chat.postMessage", thread.channel) if is_progress(a)]) == 1
    assert updates[-1] == final[-1] and not stop_button(final[-1])
    plan = plan_of(final[-1])
    assert plan.count(":white_check_mark:") == 3, plan
    assert len(updates) < events.count  # coalesced: fewer updates than events shown
    reactions = [(a["name"], a["timestamp"]) for a in calls(slack, "reactions.add", thread.channel)]
    assert ("eyes", thread.root) in reactions and ("white_check_mark", thread.root) in reactions
