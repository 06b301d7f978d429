"""``/task cancel [reason]``: the owner ends the task as cancelled, stopping the turn running now.

The body only decides (a ``cancel`` effect carrying the reason); the task workflow
stops the turn, ends with status cancelled, and a new task can then start in the channel.
"""

from __future__ import annotations

from typing import Final

from commands.finish import ending, ending_note
from commands.spec import Args, CommandConfig, CommandSpec
from harness.domain import CancelTask, CommandResult
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "cancel"


class CancelArgs(Args):
    """``reason`` empty: cancelled without one."""

    reason: str = ""


def parse(text: str) -> CancelArgs:
    """Any text, kept as typed.

    Raises:
        UsageError: the reason is too long.
    """
    return CancelArgs(reason=ending_note(text, command=NAME, usage=USAGE))


async def body(
    ctx: CommandInvokedContext, args: CancelArgs, config: CommandConfig
) -> CommandResult:
    """A ``cancel`` effect, unless the task has already ended."""
    return ending(ctx, args.reason, ends=CancelTask, done="cancelled")


SPEC: Final = CommandSpec(
    name=NAME,
    summary="end the task as cancelled, stopping what runs (owner only)",
    arguments="[reason]",
    args=CancelArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
    owner_only=True,
)
USAGE: Final = SPEC.usage
