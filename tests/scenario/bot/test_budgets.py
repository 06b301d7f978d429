"""Issue 14 end to end: a task's budget reached asks its owner, waits, and goes on after a raise."""

from __future__ import annotations

import pytest

from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import COLLAB, OWNER, Thread, snapshot, until_async

THREE = " ".join(f'call echo {{"text": "{w}"}}' for w in ("one", "two", "three"))
QUESTION = "tool-call budget of 2 is used up"


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    return posting_to(settings, bot_port, budget_tool_calls=2)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def test_a_budget_reached_asks_the_owner_and_resumes_after_a_raise(slack, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    await thread.say(THREE)
    await thread.until_posted(QUESTION)
    snaps = []

    async def waiting() -> bool:
        snaps.append(await snapshot(slack, thread))
        return snaps[-1].status == "waiting"

    await until_async(waiting, what="the task waiting for its owner")
    snap = snaps[-1]
    assert (snap.budget.tool_calls, snap.budget.tool_call_limit) == (2, 2)
    assert [q.kind for q in snap.pending] == ["budget"]

    await thread.click(COLLAB, QUESTION, "Raise to 4 tool calls")  # only the owner may
    await thread.until_posted("refused", user=COLLAB)
    assert (await snapshot(slack, thread)).status == "waiting"

    await thread.click(OWNER, QUESTION, "Raise to 4 tool calls")
    await thread.until_posted("raised the tool-call budget to 4")
    answer = await thread.until_posted("- echo: three")
    assert "- echo: one" in answer and "- echo: two" in answer
    snap = await snapshot(slack, thread)
    assert (snap.budget.tool_calls, snap.budget.tool_call_limit, snap.status) == (3, 4, "running")
