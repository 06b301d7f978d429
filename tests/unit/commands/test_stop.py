"""``/task stop``: owners and collaborators stop the running turn; a watcher is refused."""

from __future__ import annotations

import pytest

from harness.domain import StopTurn, SubtaskSummary, TaskStatus, TurnProgress
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


async def test_stop_takes_only_a_sub_task(manager, ctx):
    result = await run_command(manager, ctx("stop", "now please", snapshot=RUNNING))
    assert result.effects == ()
    assert result.reply == (
        "`now please` names no sub-task: say which, as `sub-1`\nusage: `/task stop [sub-N]`"
    )


CHILD = "slack-T1-C1/sub-1"
WORKING = SNAPSHOT.model_copy(
    update={
        "subtasks": (
            SubtaskSummary(
                task_id=CHILD,
                title="read logs",
                status="running",
                turn=TurnProgress(state="waiting"),
            ),
            SubtaskSummary(task_id="slack-T1-C1/sub-2", title="done", status="succeeded"),
            SubtaskSummary(task_id="slack-T1-C1/sub-3", title="idle", status="running"),
        )
    }
)


@pytest.mark.parametrize("named", ["sub-1", "sub-task 1", "1", "Sub-Task  1"])
async def test_a_sub_tasks_turn_is_stopped_through_its_parent(manager, ctx, named):
    result = await run_command(manager, ctx("stop", named, sender="UCOLLAB", snapshot=WORKING))
    assert result.effects == (StopTurn(user_id="UCOLLAB", subtask_id=CHILD),)
    assert result.reply.startswith("<@UCOLLAB> is stopping the turn of sub-task 1;")
    assert result.public


async def test_a_watcher_may_not_stop_a_sub_task_either(manager, ctx):
    result = await run_command(manager, ctx("stop", "sub-1", sender="UWATCH", snapshot=WORKING))
    assert result.reply == (
        "refused: watchers can only look; `/task stop` needs a collaborator or the owner"
    )
    assert result.effects == ()


@pytest.mark.parametrize(
    ("named", "reply"),
    [
        ("sub-2", "sub-task 2 has ended (done); nothing to stop"),
        ("sub-3", "sub-task 3 has no turn running; nothing to stop"),
        ("sub-7", "this task has no sub-task 7; its sub-tasks: sub-task 1, sub-task 2, sub-task 3"),
    ],
)
async def test_a_sub_task_with_nothing_to_stop_is_said_in_words(manager, ctx, named, reply):
    result = await run_command(manager, ctx("stop", named, snapshot=WORKING))
    assert (result.reply, result.effects, result.public) == (reply, (), False)


async def test_a_task_without_sub_tasks_says_so(manager, ctx):
    alone = RUNNING.model_copy(update={"subtasks": ()})
    result = await run_command(manager, ctx("stop", "sub-1", snapshot=alone))
    assert result.reply == "this task has no sub-task 1: it has no sub-tasks"
