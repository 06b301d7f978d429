"""``/effort``: show how hard the task's model thinks, or set it to low, medium or high."""

from __future__ import annotations

from typing import Final

from pydantic import ValidationError

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import DEFAULT_EFFORT, EFFORTS, CommandResult, Effort, SetEffort
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "effort"


class EffortArgs(Args):
    """``level`` ``None`` means "show"."""

    level: Effort | None = None


def parse(text: str) -> EffortArgs:
    """``low``, ``medium``, ``high`` (any case), or nothing.

    Raises:
        UsageError: any other text.
    """
    word = text.strip().lower()
    if not word:
        return EffortArgs()
    try:
        return EffortArgs.model_validate({"level": word})
    except ValidationError:
        raise UsageError(command=NAME, problem=replies.bad_effort(EFFORTS), usage=USAGE) from None


async def body(
    ctx: CommandInvokedContext, args: EffortArgs, config: CommandConfig
) -> CommandResult:
    """Show the effort, or return a ``set_effort`` effect."""
    current = ctx.snapshot.effort if ctx.snapshot else DEFAULT_EFFORT
    if args.level is None:
        return CommandResult(reply=replies.effort_shown(current, EFFORTS))
    if args.level == current:
        return CommandResult(reply=replies.effort_set(current, current, changed=False))
    return CommandResult(
        reply=replies.effort_set(args.level, current),
        effects=(SetEffort(effort=args.level),),
        public=True,  # a change: everyone in the channel sees it
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show the task's effort, or set it",
    arguments="[" + "|".join(EFFORTS) + "]",
    top_level=True,
    args=EffortArgs,
    parse=parse,
    body=body,
    mutating=True,
)
USAGE: Final = SPEC.usage
