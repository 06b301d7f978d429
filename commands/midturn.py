"""``/task mid-turn [steer|queue|interrupt]``: what a message arriving while a turn runs does.

Bare, anyone in the task sees the mode and what each one does; with a mode, the owner
changes it (a ``set_mid_turn`` effect the task workflow applies).
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import DEFAULT_MID_TURN, MID_TURN_MODES, CommandResult, MidTurn, SetMidTurn
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "mid-turn"


class MidTurnArgs(Args):
    """``mode`` ``None`` means "show"."""

    mode: MidTurn | None = None


def parse(text: str) -> MidTurnArgs:
    """One of the modes (any case), or nothing.

    Raises:
        UsageError: any other text.
    """
    word = text.strip().lower()
    if not word:
        return MidTurnArgs()
    for mode in MID_TURN_MODES:
        if word == mode:
            return MidTurnArgs(mode=mode)
    raise UsageError(command=NAME, problem=replies.bad_mid_turn(MID_TURN_MODES), usage=USAGE)


async def body(
    ctx: CommandInvokedContext, args: MidTurnArgs, config: CommandConfig
) -> CommandResult:
    """Show the mode and the choices, or return a ``set_mid_turn`` effect."""
    current = ctx.snapshot.mid_turn if ctx.snapshot else DEFAULT_MID_TURN
    if args.mode is None:
        return CommandResult(reply=replies.mid_turn_shown(current))
    if args.mode == current:
        return CommandResult(reply=replies.mid_turn_set(current, current, changed=False))
    return CommandResult(
        reply=replies.mid_turn_set(args.mode, current),
        effects=(SetMidTurn(mid_turn=args.mode, user_id=ctx.sender),),
        public=True,
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show what a message sent mid-turn does, or set it (owner only)",
    arguments="[" + "|".join(MID_TURN_MODES) + "]",
    args=MidTurnArgs,
    parse=parse,
    body=body,
    mutating=True,
    owner_only=True,
)
USAGE: Final = SPEC.usage
