"""Issue 26: a turn's question and approval are asked in that turn's thread (real bot, worker).

A later mention joins the channel's task in a thread of its own (thread B); the turn it
starts posts its progress there, and so its question (no buttons: a reply answers it) and
its approval (buttons) go there too. A reply in B answers the question, a click in B the
approval, ``/task status`` lists both while they are open, each is edited in B when it
closes, and the answer is posted in B; the task's first thread (A) hears nothing of it.
"""

from __future__ import annotations

import pytest

from bot.say.clicks import buttons
from harness.bodies.help import APPROVE
from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import (
    OWNER,
    Thread,
    another_thread,
    calls_in,
    posted_in,
    snapshot,
    until,
    until_async,
)

QUESTION = "which region?"
PLAN = (
    f'plan: call ask_human {{"question": "{QUESTION}"}}; '
    'call write_artefact {"name": "notes", "content": "one"}'
)
APPROVAL = "wants to call write_artefact"


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text('[approvals]\ndefault = "safe"\ntimeout_seconds = 120\n')
    return posting_to(settings, bot_port, hooks_config=hooks)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def waiting_on(thread: Thread, needle: str) -> str:
    """``/task status`` once the task waits on a question holding ``needle``."""

    async def waiting() -> bool:
        snap = await snapshot(thread.slack, thread)
        return snap.status == "waiting" and any(needle in q.question for q in snap.pending)

    await until_async(waiting, what=f"the task waiting on {needle!r}")
    return await thread.slash("/task status")


async def test_a_question_and_an_approval_of_a_turn_in_a_new_thread_are_asked_there(slack, harness):
    first = Thread(slack, harness)
    await first.start("hello")
    await first.until_posted("(offline) hello")

    async def idle() -> bool:
        return (await snapshot(slack, first)).turn is None

    await until_async(idle, what="the first turn over")
    in_first = len(calls_in(first))
    assert in_first >= 2  # "started a task", the progress message, the answer

    second = another_thread(first)
    await second.start(PLAN)
    asked = await posted_in(second, lambda p: p.get("text", "").startswith(QUESTION), "question")
    assert buttons(asked) == []  # no options: a reply in this thread answers it
    assert QUESTION in await waiting_on(second, QUESTION)

    await second.say("eu-west")  # a reply in thread B, where the question is
    approval = await posted_in(second, lambda p: APPROVAL in p.get("text", ""), "the approval")
    assert buttons(approval)
    assert APPROVAL in await waiting_on(second, APPROVAL)
    closed = await posted_in(
        second,
        lambda p: p["ts"] == asked["ts"] and "answered by <@U0OWNER>: eu-west" in p["text"],
        "the question edited, answered",
    )
    assert buttons(closed) == []

    await second.click(OWNER, APPROVAL, APPROVE)  # a click in thread B
    answer = await posted_in(
        second, lambda p: "answered: eu-west" in p.get("text", ""), "the turn's answer"
    )
    assert "write_artefact" in answer["text"]
    await posted_in(
        second,
        lambda p: p["ts"] == approval["ts"] and not buttons(p),
        "the approval edited, approved",
    )

    # The reply was the question's answer, not a mid-turn note; thread A heard nothing.
    assert not [t for t in second.posts(OWNER) if t.startswith("noted:")]
    assert len(calls_in(first)) == in_first, calls_in(first)[in_first:]
    snap = await snapshot(slack, first)
    assert (snap.status, snap.pending) == ("running", ())


async def test_a_reply_in_the_first_thread_does_not_answer_a_question_asked_in_the_second(
    slack, harness
):
    first = Thread(slack, harness)
    await first.start("hello")
    await first.until_posted("(offline) hello")
    second = another_thread(first)
    await second.start(f"ask: {QUESTION}")
    await waiting_on(second, QUESTION)

    asked = await posted_in(second, lambda p: p.get("text", "").startswith(QUESTION), "question")
    await first.say("us-east")  # not where the question is: a message to the task, mid-turn
    await until(
        lambda: [t for t in first.posts(OWNER) if "mid-turn mode" in t],
        what="the reply in A told what became of it, in A",
    )
    assert (await snapshot(slack, first)).status == "waiting"

    await second.say("eu-west")
    await posted_in(
        second,
        lambda p: p["ts"] == asked["ts"] and "answered by <@U0OWNER>: eu-west" in p["text"],
        "the question answered from B",
    )
