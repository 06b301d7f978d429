"""Issue 14, budgets end to end (beside test_budgets.py, the raise): what the status view shows
of a task waiting at its limit, a watcher's click refused, the owner's stop answered honestly,
a limit raised by command letting the next request run, and a sub-task's usage counted in its
parent when it ends.

Real bot over HTTP, real worker (built-in and ``commands`` plugins), real dev server, the
offline model and the bot's Web API stand-in; the worker's default limit is one tool call.
"""

from __future__ import annotations

import pytest

from harness.config import Settings

from .conftest import posting_to, serve_bot
from .threads import OWNER, WATCHER, Thread, command_as, snapshot, until_async

TWO_CALLS = 'call echo {"text": "first"} call echo {"text": "second"}'
QUESTION = "<@U0OWNER>, the tool-call budget of 1 is used up (1 used). Raise it, or stop here?"
STOPPED = "stopped: the tool-call budget of 1 is used up; `/task budget tool-calls N` raises it"


@pytest.fixture
def settings(settings: Settings, bot_port) -> Settings:
    return posting_to(settings, bot_port, budget_tool_calls=1)


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker):
    async for sender in serve_bot(harness, tmp_path, port=bot_port):
        yield sender


async def test_the_owner_stops_at_the_limit_and_raises_it_by_command(slack, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    await thread.invite()
    await thread.say(TWO_CALLS)
    await thread.until_posted(QUESTION)

    async def waiting() -> bool:
        return (await snapshot(slack, thread)).status == "waiting"

    await until_async(waiting, what="the task waiting for its owner")
    status = (await command_as(slack, thread, WATCHER, "/task status")).splitlines()
    assert status[0] == "*hello* — waiting"
    [used] = [line for line in status if line.startswith("budget: ")]
    assert used.endswith("· tool calls 1 of 1 (100 %)")
    [asked] = [line for line in status if line.startswith("• budget: ")]
    assert "the tool-call budget of 1 is used up" in asked and asked.endswith("no time limit")

    await thread.click(WATCHER, QUESTION, "Raise to 2 tool calls")
    refused = await thread.until_posted("refused: ", user=WATCHER)
    assert "only the task's owner can raise its budget" in refused
    await thread.click(OWNER, QUESTION, "Stop here")
    await thread.until_posted(STOPPED)
    assert not any("- echo: second" in post for post in thread.posts())
    assert (await snapshot(slack, thread)).pending == ()

    said = await thread.slash("/task budget tool-calls 10")
    assert "<@U0OWNER> set the budget: tool-calls 10" in said
    assert (await snapshot(slack, thread)).budget.tool_call_limit == 10
    await thread.say('call echo {"text": "again"}')
    await thread.until_posted("Tool results:\n- echo: again")
    shown = await command_as(slack, thread, WATCHER, "/task budget")
    assert "tool calls 2 of 10 (20 %)" in shown


async def test_a_sub_tasks_usage_counts_in_its_parent_when_it_ends(slack, harness):
    thread = Thread(slack, harness)
    await thread.start("hello")
    await thread.until_posted("(offline) hello")
    alone = (await snapshot(slack, thread)).budget
    assert (alone.tool_calls, alone.tool_call_limit) == (0, 1) and alone.tokens > 0

    said = await thread.slash('/sub-task call echo {"text": "child"}')
    assert "starting sub-task" in said
    await thread.until_posted("- echo: child")
    # Its request answered, the sub-task ends by itself (issue 26).

    async def child_ended() -> bool:
        found = (await snapshot(slack, thread)).subtasks
        return bool(found) and found[0].status in ("succeeded", "failed", "cancelled")

    await until_async(child_ended, what="the sub-task ended")
    parent = await snapshot(slack, thread)
    assert parent.subtasks[0].status == "succeeded"
    assert parent.budget.tool_calls == 1  # the child's one call; the parent made none
    assert parent.budget.tokens > alone.tokens  # and the child's model calls
    assert parent.budget.tool_call_limit == 1  # the parent's own limit, kept
