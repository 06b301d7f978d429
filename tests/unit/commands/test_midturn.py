"""``/task mid-turn``: anyone sees the mode; the owner changes it."""

from __future__ import annotations

import pytest

from commands import UsageError, midturn
from harness.domain import SetMidTurn
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT


async def test_bare_shows_the_mode_and_what_each_does_to_a_watcher(manager, ctx):
    result = await run_command(manager, ctx("mid-turn", sender="UWATCH"))
    assert result.reply.splitlines() == [
        "mid-turn: `steer` — a message sent while a turn runs is:",
        "• `steer` (now): added to what the agent is doing, at its next step",
        "• `queue`: answered after the current turn, in order",
        "• `interrupt`: answered at once, stopping the current turn",
    ]
    assert result.effects == ()


async def test_the_owner_sets_it(manager, ctx):
    result = await run_command(manager, ctx("mid-turn", " QUEUE "))
    assert result.effects == (SetMidTurn(mid_turn="queue", user_id="UOWNER"),)
    assert result.reply.startswith("mid-turn set to `queue` (was `steer`)")


@pytest.mark.parametrize("sender", ["UCOLLAB", "UWATCH"])
async def test_only_the_owner_sets_it(manager, ctx, sender):
    result = await run_command(manager, ctx("mid-turn", "interrupt", sender=sender))
    assert result.reply == "refused: only the task's owner can use `/task mid-turn`"
    assert result.effects == ()


async def test_same_mode_changes_nothing(manager, ctx):
    snapshot = SNAPSHOT.model_copy(update={"mid_turn": "interrupt"})
    result = await run_command(manager, ctx("mid-turn", "interrupt", snapshot=snapshot))
    assert (result.reply, result.effects) == ("mid-turn is already `interrupt`", ())


def test_an_unknown_mode_is_a_usage_error():
    with pytest.raises(
        UsageError,
        match=r"one of steer, queue, interrupt\nusage: "
        r"/task mid-turn \[steer\|queue\|interrupt\]",
    ):
        midturn.parse("shout")
