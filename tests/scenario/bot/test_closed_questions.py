"""Issue 26: questions and buttons after the fact, through the real bot, worker and dev server.

A question that closes (answered, timed out, left open by a stop) is edited in place to say
how, its buttons gone; a click that comes later, on the buttons a client still shows, is
answered to the clicker in words (how it closed), never with an id; a second click on an
approval already answered in the same turn gets that answer too. A plan step that asks a
question asks it once. The hooks file's ``[approvals]`` asks before ``write_artefact``.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid

import pytest

from bot.say.clicks import buttons, click_body, from_task
from harness.bodies.help import APPROVE
from harness.config import Settings

from .conftest import TEAM, posting_to, serve_bot
from .threads import COLLAB, HOLD, OWNER, Hold, Thread, snapshot, until_async

ASK = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'
WRITE = 'call write_artefact {"name": "notes", "content": "one"}'
APPROVAL = "wants to call write_artefact"
LEAKS = re.compile(r"help-|task/|HookAbort|Error\b|\.pre\b|\.in\b|\.post\b")
"""What no thread text may hold: a question or workflow id, an exception class, a hook point."""


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text('[approvals]\ndefault = "safe"\ntimeout_seconds = 3\n')
    return posting_to(
        settings,
        bot_port,
        hooks_config=hooks,
        activity_start_to_close_seconds=60,
        activity_heartbeat_seconds=0.5,
    )


@pytest.fixture
def hold(manager) -> Hold:
    gate = Hold()
    manager.register("tool.invoked.pre", gate, priority=10)
    return gate


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, hold):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender
    hold.release.set()


async def question(thread: Thread, needle: str) -> dict:
    """The question's post as the stand-in serves it now (its text, blocks and ``ts``)."""
    found = await until_raw(thread, lambda p: needle in p.get("text", "") and buttons(p))
    return found


async def until_raw(thread: Thread, check, what: str = "a post") -> dict:
    deadline = time.monotonic() + 20
    while not (found := next((p for p in await thread.raw_posts() if check(p)), None)):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return found


async def edited(thread: Thread, asked: dict, note: str) -> dict:
    """The question's post once it reads ``note``: it must have no buttons left."""
    post = await until_raw(
        thread, lambda p: p["ts"] == asked["ts"] and note in p.get("text", ""), f"{note!r}"
    )
    assert buttons(post) == [], post
    assert any(note in str(b) for b in post["blocks"])  # what Slack shows, not only the text
    return post


async def late_click(thread: Thread, post: dict, user: str, value: str) -> str:
    """``user`` clicks ``value`` on ``post`` as it was when it had buttons; what they read."""
    index = next(i for i, b in enumerate(buttons(post), 1) if b.get("value") == value)
    key = f"click-{uuid.uuid4().hex}"
    body = click_body(
        post, index, user=user, team=TEAM, response_url=f"{thread.slack.base}/_local/response/{key}"
    )
    status, _ = await thread.slack.post(
        body, thread.slack.build_headers(body, "application/x-www-form-urlencoded")
    )
    assert status == 200
    deadline = time.monotonic() + 20
    while not (answers := await thread.slack.responses(key)):
        assert time.monotonic() < deadline, "the late click got no answer"
        await asyncio.sleep(0.05)
    [answer] = answers
    assert answer["response_type"] == "ephemeral"
    return answer["text"]


def no_leaks(thread: Thread) -> None:
    """Nothing the task said in the thread (posts, edits, what one person saw) leaks.

    The bot's own "started a task" notice is not the task's; everything the worker posted
    carries its metadata (:func:`from_task`).
    """
    said = [
        " ".join([str(a.get("text", "")), *visible(a.get("blocks") or [])])
        for m, a in thread.slack.bot.standin.calls
        if a.get("channel") == thread.channel
        and (m in ("chat.postEphemeral", "chat.update") or from_task(a))
    ]
    assert said and not [s for s in said if LEAKS.search(s)], said


def visible(blocks: list) -> list[str]:
    """The words of ``blocks`` a person sees (texts and button labels; not ids or values)."""
    found = []
    for block in blocks:
        for part in [block, *block.get("elements", [])]:
            text = part.get("text")
            found.append(text.get("text", "") if isinstance(text, dict) else str(text or ""))
    return found


async def test_an_answered_question_is_edited_and_a_late_click_is_told_who_answered(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(ASK)
    asked = await question(thread, "which environment?")
    await thread.click(OWNER, "which environment?", "staging")
    await thread.until_posted("answered: staging")
    await edited(thread, asked, "answered by <@U0OWNER>: staging")

    said = await late_click(thread, asked, COLLAB, "prod")
    assert said == (
        "this question is no longer open (answered by <@U0OWNER>: staging), "
        "so your answer was not taken"
    )
    assert (await snapshot(slack, thread)).status == "running"
    no_leaks(thread)


async def test_a_timed_out_approval_is_edited_to_say_so(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(WRITE)
    asked = await question(thread, APPROVAL)
    await thread.until_posted("timed out, not approved")
    await edited(thread, asked, "timed out")
    said = await late_click(thread, asked, OWNER, APPROVE)
    assert said.startswith("this question is no longer open (timed out")
    no_leaks(thread)


async def test_a_second_click_on_an_approval_answered_in_this_turn_is_answered(
    slack, harness, hold
):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    await thread.say(f"{WRITE} then {HOLD}")  # the turn goes on after the approval
    asked = await question(thread, APPROVAL)
    await thread.click(OWNER, APPROVAL, APPROVE)
    await hold.until_held()  # approved, written, and the turn still runs
    assert (await snapshot(slack, thread)).turn is not None
    said = await late_click(thread, asked, COLLAB, APPROVE)
    assert said == (
        "this question is no longer open (answered by <@U0OWNER>: Approve), "
        "so your answer was not taken"
    )
    hold.release.set()
    await thread.until_posted("- write_artefact:")
    no_leaks(thread)


async def test_a_question_left_open_by_a_stop_is_closed_and_the_task_is_idle(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(ASK)
    asked = await question(thread, "which environment?")

    async def waiting() -> bool:  # posted first, then the task waits
        return (await snapshot(slack, thread)).status == "waiting"

    await until_async(waiting, what="the task waiting for an answer")
    await thread.slash("/task stop")
    await thread.until_posted("stopped by <@U0OWNER>")
    await edited(thread, asked, "closed by a stop")

    async def ended() -> bool:  # posted first, then the turn is over
        return (await snapshot(slack, thread)).turn is None

    await until_async(ended, what="the stopped turn over")
    snap = await snapshot(slack, thread)
    assert (snap.status, snap.pending) == ("running", ())
    status = await thread.slash("/task status")
    assert status.splitlines()[0].endswith("— idle"), status
    assert "now: idle, waiting for a message" in status
    said = await late_click(thread, asked, OWNER, "staging")
    assert said.startswith("this question is no longer open (closed by a stop")
    no_leaks(thread)


async def test_a_plan_step_asks_its_question_once_with_its_buttons(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(
        'plan: call calculator {"expression": "6*7"}; '
        'call ask_human {"question": "deploy now?", "options": ["yes", "no"]}; '
        'call echo {"text": "deployed"}'
    )
    asked = await question(thread, "deploy now?")
    assert [b["value"] for b in buttons(asked)] == ["yes", "no"]
    await thread.click(OWNER, "deploy now?", "yes")
    answer = await thread.until_posted("3. call echo")
    assert answer.count("answered: yes") == 1, answer
    questions = [p for p in await thread.raw_posts() if p.get("method") == "chat.postMessage"]
    assert not [p for p in questions if "needs your input" in p.get("text", "")]
    assert len([p for p in questions if p.get("text", "").startswith("deploy now?")]) == 1
    no_leaks(thread)
