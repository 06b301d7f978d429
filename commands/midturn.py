"""``/task mid-turn [steer|queue|interrupt]``: what a message arriving while a turn runs does.

Bare, anyone in the task sees the mode and what each one does; with a mode, the owner
changes it (a ``set_mid_turn`` effect the task workflow applies).
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness.domain import DEFAULT_MID_TURN, MID_TURN_MODES, CommandResult, MidTurn, SetMidTurn
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "mid-turn"
MEANING: Final[dict[MidTurn, str]] = {
    "steer": "added to what the agent is doing, at its next step",
    "queue": "answered after the current turn, in order",
    "interrupt": "answered at once, stopping the current turn",
}
"""One line per mode: what a message sent while a turn runs does."""


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
    raise UsageError(
        command=NAME, problem=f"the mode must be one of {', '.join(MID_TURN_MODES)}", usage=USAGE
    )


async def body(
    ctx: CommandInvokedContext, args: MidTurnArgs, config: CommandConfig
) -> CommandResult:
    """Show the mode and the choices, or return a ``set_mid_turn`` effect."""
    current = ctx.snapshot.mid_turn if ctx.snapshot else DEFAULT_MID_TURN
    if args.mode is None:
        lines = [f"mid-turn: `{current}` — a message sent while a turn runs is:"]
        lines += [
            f"• `{mode}`{' (now)' if mode == current else ''}: {MEANING[mode]}"
            for mode in MID_TURN_MODES
        ]
        return CommandResult(reply="\n".join(lines))
    if args.mode == current:
        return CommandResult(reply=f"mid-turn is already `{current}`")
    return CommandResult(
        reply=f"mid-turn set to `{args.mode}` (was `{current}`): a message sent while a turn "
        f"runs is {MEANING[args.mode]}",
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
