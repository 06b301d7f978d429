"""``/task finish [summary]``: end the task as done, so a new one can start in the channel.

The body only decides (a ``finish`` effect carrying the summary); the task workflow
stops any turn, ends with status succeeded and returns the summary as its outcome.
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import FINAL_STATUSES, CancelTask, CommandResult, FinishTask
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "finish"
SUMMARY_LIMIT: Final = 2000
"""Characters a summary may have: it ends up in the task's outcome and the thread."""


class FinishArgs(Args):
    """``summary`` empty: finished without one."""

    summary: str = ""


def parse(text: str) -> FinishArgs:
    """Any text, kept as typed (at most :data:`SUMMARY_LIMIT` characters).

    Raises:
        UsageError: the summary is too long.
    """
    return FinishArgs(summary=ending_note(text, command=NAME, usage=USAGE))


def ending_note(text: str, *, command: str, usage: str) -> str:
    """``text`` stripped, refused when longer than :data:`SUMMARY_LIMIT` (also ``/task cancel``'s).

    Raises:
        UsageError: it is too long.
    """
    note = text.strip()
    if len(note) > SUMMARY_LIMIT:
        raise UsageError(command=command, problem=replies.too_long(SUMMARY_LIMIT), usage=usage)
    return note


def ending(
    ctx: CommandInvokedContext, note: str, *, ends: type[FinishTask | CancelTask], done: str
) -> CommandResult:
    """The effect that ends the task (``finish`` or ``cancel``), unless it has ended already;
    the reply says who ``done`` it (``finished``, ``cancelled``) and that a new one may start."""
    if ctx.snapshot is not None and ctx.snapshot.status in FINAL_STATUSES:
        return CommandResult(reply=replies.already_over(ctx.snapshot.status))
    return CommandResult(
        reply=replies.ended_by(ctx.sender, done, note),
        effects=(ends(summary=note, user_id=ctx.sender),),
        public=True,
    )


async def body(
    ctx: CommandInvokedContext, args: FinishArgs, config: CommandConfig
) -> CommandResult:
    """A ``finish`` effect, unless the task has already ended."""
    return ending(ctx, args.summary, ends=FinishTask, done="finished")


SPEC: Final = CommandSpec(
    name=NAME,
    summary="end the task as done; a new one can then start here",
    arguments="[summary]",
    args=FinishArgs,
    parse=parse,
    body=body,
    mutating=True,
    bare_is_read_only=False,
)
USAGE: Final = SPEC.usage
