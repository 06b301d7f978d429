"""Issue 26: plans of 40 and 200 steps keep a progress message Slack takes, and one a person reads.

Real bot, worker and dev server; the bot's stand-in refuses what Slack refuses
(:mod:`bot.standin_limits`). Steps have long titles and notes, so the first 20 of them alone
were over a section's 3,000 characters: the message froze mid-plan with a live Stop button.
Now the plan section is a window around the current step (the steps before it one line of
counts, the rest "… and N more"), every update is taken, and the last one says it is done.
"""

from __future__ import annotations

import pytest

from bot.say.clicks import is_progress
from commands import register_all
from harness.channels.slack_limits import MAX_TEXT, MAX_TEXT_OBJECT
from harness.config import Settings
from harness.temporal.worker import build_manager

from .conftest import MODELS, posting_to, serve_bot
from .test_progress import calls, plan_of, stop_button
from .threads import HOLD, Hold, Thread, until

WORDS = "a step with a title long enough to fill its line in the progress message"


def long_plan(steps: int, hold_at: int = 0, words: str = WORDS) -> str:
    """``plan:`` of ``steps`` echo calls with long texts; step ``hold_at`` is held."""
    return "plan: " + "; ".join(
        HOLD if n == hold_at else f'call echo {{"text": "{n:03} {words}"}}'
        for n in range(1, steps + 1)
    )


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    return posting_to(
        settings,
        bot_port,
        progress="on",
        progress_interval_seconds=0.3,
        activity_start_to_close_seconds=60,
    )


@pytest.fixture
def hold() -> Hold:
    return Hold()


@pytest.fixture
async def manager(settings, store, hold):
    manager = build_manager(settings, store.database)
    register_all(manager, models=MODELS)
    manager.register("tool.invoked.pre", hold, priority=10)
    yield manager
    hold.release.set()
    await manager.aclose()


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


def progress_updates(slack, thread: Thread) -> list[dict]:
    posted = [a for a in calls(slack, "chat.postMessage", thread.channel) if is_progress(a)]
    return posted + calls(slack, "chat.update", thread.channel)


async def until_done(slack, thread: Thread, timeout: float) -> dict:
    final = await until(
        lambda: [
            u
            for u in calls(slack, "chat.update", thread.channel)
            if u.get("text", "").startswith(":white_check_mark:")
        ],
        timeout=timeout,
        what="the progress message saying the plan is done",
    )
    return final[-1]


async def test_a_40_step_plan_shows_a_window_around_the_current_step(slack, harness, hold):
    thread = Thread(slack, harness)
    await thread.start(long_plan(40, hold_at=25))
    await hold.until_held()
    held = await until(
        lambda: next(
            (
                u
                for u in reversed(calls(slack, "chat.update", thread.channel))
                if ":hourglass_flowing_sand: 25. call echo" in plan_of(u)
            ),
            None,
        ),
        timeout=60,
        what="an update with step 25 running",
    )
    lines = plan_of(held).splitlines()
    assert lines[0] == ":white_check_mark: 1-22: 22 done"
    assert [line.split(" ", 2)[1] for line in lines[1:-1]] == [f"{n}." for n in range(23, 38)]
    assert lines[-1] == "… and 3 more"
    assert stop_button(held) and "step 25 of 40" in held["text"]
    hold.release.set()
    final = await until_done(slack, thread, timeout=120)
    assert plan_of(final).splitlines()[0] == ":white_check_mark: 1-25: 25 done"
    assert plan_of(final).splitlines()[-1].startswith(":white_check_mark: 40. call echo")
    assert "40 of 40 steps" in final["text"] and not stop_button(final)
    shown = progress_updates(slack, thread)
    assert max(len(plan_of(u)) for u in shown) <= MAX_TEXT_OBJECT
    assert slack.bot.standin.refused == []


async def test_a_200_step_plan_is_taken_by_slack_to_its_last_step(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(long_plan(200, words=f"{WORDS}, and then some more of it: {WORDS}"))
    final = await until_done(slack, thread, timeout=600)
    lines = plan_of(final).splitlines()
    assert lines[0] == ":white_check_mark: 1-185: 185 done" and len(lines) == 16
    assert "200 of 200 steps" in final["text"] and not stop_button(final)
    # The answer lists every step: over what one message holds, so it is cut, and says so.
    answer = await thread.until_posted("1. call echo")
    assert len(answer) <= MAX_TEXT and "199. call echo" not in answer
    assert answer.endswith("more characters do not fit in one Slack message)")
    assert slack.bot.standin.refused == []
