"""``/task cancel [reason]``: only the owner ends the task as cancelled."""

from __future__ import annotations

import pytest

from harness.domain import CancelTask, TaskStatus
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT


async def test_the_owner_cancels_with_a_reason(manager, ctx):
    result = await run_command(manager, ctx("cancel", "wrong channel"))
    assert result.effects == (CancelTask(summary="wrong channel", user_id="UOWNER"),)
    assert result.reply.startswith("<@UOWNER> cancelled this task: wrong channel\n")
    assert result.public


@pytest.mark.parametrize("sender", ["UCOLLAB", "UWATCH"])
async def test_anyone_else_is_refused_even_bare(manager, ctx, sender):
    result = await run_command(manager, ctx("cancel", sender=sender))
    assert result.reply == "refused: only the task's owner can use `/task cancel`"
    assert result.effects == ()


async def test_an_ended_task_is_not_cancelled(manager, ctx):
    ended = SNAPSHOT.model_copy(update={"status": TaskStatus.FAILED})
    result = await run_command(manager, ctx("cancel", snapshot=ended))
    assert (result.reply, result.effects) == ("this task has already ended (failed)", ())
