"""``/task stop``: stop the turn running now; the task stays and waits for the next message.

The body only decides (a ``stop_turn`` effect in the sender's name); the task workflow
cancels the turn and posts the honest summary of what was done in the thread. The bot
maps the Stop button of a progress message to this command, so both are one path.
``/task stop sub-1`` stops one sub-task's turn instead (the parent signals it; a sub-task's
turn is its last, so it then ends; issue 26), under the same role guard.
"""

from __future__ import annotations

from typing import Final

from commands import which_subtask
from commands.spec import Args, CommandConfig, CommandSpec
from harness import replies
from harness.domain import FINAL_STATUSES, CommandResult, StopTurn
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "stop"


class StopArgs(Args):
    """The sub-task whose turn to stop, by its number (``None``: the task's own turn)."""

    subtask: int | None = None


def parse(text: str) -> StopArgs:
    """Nothing, or a sub-task (``sub-1``, ``sub-task 1``, ``1``).

    Raises:
        UsageError: text that names no sub-task.
    """
    return StopArgs(subtask=which_subtask.number(text, command=NAME, usage=USAGE))


async def body(ctx: CommandInvokedContext, args: StopArgs, config: CommandConfig) -> CommandResult:
    """A ``stop_turn`` effect when a turn runs; otherwise say there is nothing to stop."""
    snapshot = ctx.snapshot
    if snapshot is not None and snapshot.status in FINAL_STATUSES:
        return CommandResult(reply=replies.stop_over(snapshot.status))
    if args.subtask is not None:
        return stop_subtask(ctx, args.subtask)
    if snapshot is not None and snapshot.turn is None:
        return CommandResult(reply=replies.NO_TURN)
    return CommandResult(
        reply=replies.stopping(ctx.sender),
        effects=(StopTurn(user_id=ctx.sender),),
        public=True,  # everyone following the task sees who stopped it
    )


def stop_subtask(ctx: CommandInvokedContext, number: int) -> CommandResult:
    """A ``stop_turn`` effect for sub-task ``number`` when its turn runs; otherwise say why not
    (it does not exist: the ones that do; it ended; nothing of it runs)."""
    found = which_subtask.find(ctx.snapshot, number)
    if isinstance(found, str):
        return CommandResult(reply=found)
    label = replies.subtask_label(found.task_id)
    if found.status in FINAL_STATUSES:
        return CommandResult(reply=replies.subtask_over(label, found.status))
    if found.turn is None or found.turn.state not in ("running", "waiting"):
        return CommandResult(reply=replies.nothing_to_stop(found.task_id))
    return CommandResult(
        reply=replies.stopping_subtask(ctx.sender, label),
        effects=(StopTurn(user_id=ctx.sender, subtask_id=found.task_id),),
        public=True,  # as the task's own stop: everyone following sees who stopped it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="stop the turn running now (the task waits for the next message), or a sub-task's",
    arguments=which_subtask.ARGUMENT,
    args=StopArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
)
USAGE: Final = SPEC.usage
