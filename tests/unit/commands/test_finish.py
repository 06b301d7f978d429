"""``/task finish [summary]``: owners and collaborators end the task as done."""

from __future__ import annotations

import pytest

from harness.domain import FinishTask, TaskStatus
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT


@pytest.mark.parametrize("sender", ["UOWNER", "UCOLLAB"])
async def test_finish_ends_the_task_with_the_summary(manager, ctx, sender):
    result = await run_command(manager, ctx("finish", "  fixed in <@U1> PR 42 ", sender=sender))
    assert result.effects == (FinishTask(summary="fixed in <@U1> PR 42", user_id=sender),)
    assert result.reply.splitlines() == [
        f"<@{sender}> finished this task: fixed in &lt;@U1&gt; PR 42",
        "mention me in the channel to start a new one",
    ]
    assert result.public


async def test_finish_without_a_summary(manager, ctx):
    result = await run_command(manager, ctx("finish"))
    assert result.effects == (FinishTask(user_id="UOWNER"),)
    assert result.reply.startswith("<@UOWNER> finished this task\n")


async def test_a_watcher_cannot_finish(manager, ctx):
    result = await run_command(manager, ctx("finish", "done", sender="UWATCH"))
    assert result.reply == (
        "refused: watchers can only look; `/task finish` needs a collaborator or the owner"
    )
    assert result.effects == ()


async def test_an_ended_task_is_not_finished_again(manager, ctx):
    ended = SNAPSHOT.model_copy(update={"status": TaskStatus.SUCCEEDED})
    result = await run_command(manager, ctx("finish", snapshot=ended))
    assert result == result.model_copy(update={"effects": ()})
    assert result.reply == "this task has already ended (succeeded)"


async def test_a_summary_too_long_is_a_usage_reply(manager, ctx):
    result = await run_command(manager, ctx("finish", "x" * 2001))
    assert result.effects == ()
    assert result.reply.startswith("keep it under 2,000 characters\nusage: `/task finish")
