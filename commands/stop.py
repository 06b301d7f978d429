"""``/task stop``: stop the turn running now; the task stays and waits for the next message.

The body only decides (a ``stop_turn`` effect in the sender's name); the task workflow
cancels the turn and posts the honest summary of what was done in the thread. The bot
maps the Stop button of a progress message to this command, so both are one path.
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from harness.domain import FINAL_STATUSES, CommandResult, StopTurn
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "stop"


class StopArgs(Args):
    """No arguments."""


def parse(text: str) -> StopArgs:
    """Nothing.

    Raises:
        UsageError: any text.
    """
    no_arguments(text, command=NAME, usage=USAGE)
    return StopArgs()


async def body(ctx: CommandInvokedContext, args: StopArgs, config: CommandConfig) -> CommandResult:
    """A ``stop_turn`` effect when a turn runs; otherwise say there is nothing to stop."""
    snapshot = ctx.snapshot
    if snapshot is not None and snapshot.status in FINAL_STATUSES:
        return CommandResult(reply=f"this task has ended ({snapshot.status}); nothing to stop")
    if snapshot is not None and snapshot.turn is None:
        return CommandResult(reply="no turn is running; nothing to stop")
    return CommandResult(
        reply=f"<@{ctx.sender}> is stopping the current turn; what it did and did not do "
        "follows in the thread",
        effects=(StopTurn(user_id=ctx.sender),),
        public=True,  # everyone following the task sees who stopped it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="stop the turn running now (the task waits for the next message)",
    arguments="",
    args=StopArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
)
USAGE: Final = SPEC.usage
