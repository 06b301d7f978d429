"""``/task stop``: owners and collaborators stop the running turn; a watcher is refused."""

from __future__ import annotations

import pytest

from harness.domain import StopTurn, TaskStatus, TurnProgress
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT

RUNNING = SNAPSHOT.model_copy(update={"turn": TurnProgress(started_at=1.0)})


@pytest.mark.parametrize("sender", ["UOWNER", "UCOLLAB"])
async def test_owner_and_collaborator_stop_the_turn_in_their_name(manager, ctx, sender):
    result = await run_command(manager, ctx("stop", sender=sender, snapshot=RUNNING))
    assert result.effects == (StopTurn(user_id=sender),)
    assert result.reply.startswith(f"<@{sender}> is stopping the current turn")
    assert result.public


async def test_a_watcher_is_refused_in_the_usual_grammar(manager, ctx):
    result = await run_command(manager, ctx("stop", sender="UWATCH", snapshot=RUNNING))
    assert result.reply == (
        "refused: watchers can only look; `/task stop` needs a collaborator or the owner"
    )
    assert result.effects == ()


async def test_a_stranger_is_refused(manager, ctx):
    result = await run_command(manager, ctx("stop", sender="USTRANGER", snapshot=RUNNING))
    assert result.reply.startswith("refused: you are not part of this task")
    assert result.effects == ()


async def test_nothing_to_stop_when_idle_or_ended(manager, ctx):
    idle = await run_command(manager, ctx("stop", snapshot=SNAPSHOT))
    assert (idle.reply, idle.effects) == ("no turn is running; nothing to stop", ())
    ended = SNAPSHOT.model_copy(update={"status": TaskStatus.CANCELLED})
    done = await run_command(manager, ctx("stop", snapshot=ended))
    assert done.effects == () and "has ended (cancelled)" in done.reply


async def test_stop_takes_no_arguments(manager, ctx):
    result = await run_command(manager, ctx("stop", "now please", snapshot=RUNNING))
    assert result.effects == () and "`/task stop` takes no arguments" in result.reply
