"""Issue 14 end to end: approvals by policy through the real bot, worker and dev server.

The hooks file's ``[approvals]`` asks before ``write_artefact`` (it requires approval; the
default ``safe``); the question reaches the thread with three buttons, clicked as Slack
would send the click. An unanswered question times out as a timeout, never as a denial.
"""

from __future__ import annotations

import pytest

from harness.bodies.help import DENY, REMEMBER
from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import COLLAB, OWNER, WATCHER, Thread, snapshot, until

WRITE = 'call write_artefact {{"name": "notes", "content": "{}"}}'
QUESTION = "wants to call write_artefact"


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text('[approvals]\ndefault = "safe"\ntimeout_seconds = 3\n')
    return posting_to(settings, bot_port, hooks_config=hooks)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


def questions(thread: Thread) -> list[str]:
    return [p for p in thread.posts() if QUESTION in p]


async def test_approve_and_remember_is_not_asked_again_and_a_watcher_cannot_approve(slack, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    await thread.say(WRITE.format("one"))
    await thread.until_posted(QUESTION)
    pending = (await snapshot(slack, thread)).pending
    assert [(q.kind, q.timeout_seconds) for q in pending] == [("approval", 3.0)]

    await thread.click(WATCHER, QUESTION, REMEMBER)
    await thread.until_posted("only the owner or a collaborator", user=WATCHER)
    await thread.click(COLLAB, QUESTION, REMEMBER)
    await thread.until_posted("- write_artefact:")
    snap = await snapshot(slack, thread)
    assert snap.approved_tools == ("write_artefact",) and snap.pending == ()

    await thread.say(WRITE.format("two"))
    await until(
        lambda: len([p for p in thread.posts() if "- write_artefact:" in p]) == 2,
        what="the second write's answer",
    )
    assert len(questions(thread)) == 1  # the second call was not asked about


async def test_a_denial_names_the_decider_and_a_timeout_names_nobody(slack, harness):
    thread = Thread(slack, harness)
    await thread.start(WRITE.format("one"))
    await thread.click(OWNER, QUESTION, DENY)
    denied = await thread.until_posted("Tool results:")
    assert "<@U0OWNER>" in denied or "U0OWNER" in denied, denied
    assert "timed out" not in denied

    await thread.say(WRITE.format("two"))
    notice = await thread.until_posted("timed out, not approved")
    assert "within 3 s" in notice
    answer = await until(
        lambda: [p for p in thread.posts() if "Tool results:" in p][1:],
        what="the timed-out call's answer",
    )
    assert "approval timed out" in answer[0] and "U0OWNER" not in answer[0]
    assert (await snapshot(slack, thread)).pending == ()
