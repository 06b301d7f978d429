"""``/task help``: the commands the sender may use in this task, generated from the registry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel

from commands import invite
from commands.guard import refusal
from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from harness.domain import CommandResult, Role
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "help"
TALK: Final = "mention me in a thread to talk to the task."


class HelpArgs(Args):
    """No arguments."""


def parse(text: str) -> HelpArgs:
    """Nothing.

    Raises:
        UsageError: any text.
    """
    no_arguments(text, command=NAME, usage=USAGE)
    return HelpArgs()


def render(role: Role, config: CommandConfig) -> str:
    """One line per command ``role`` may use; bare-only forms are marked as such.

    Someone with no role is told how to get one and what a collaborator can then do,
    rather than refused: help is the one command that shows nothing of the task.
    """
    if role is Role.NONE:
        return "\n".join(
            [
                f"you are not part of this task yet: ask its owner to `{invite.SPEC.invocation}` "
                "you; as a collaborator you could use:",
                *command_lines(Role.COLLABORATOR, config.commands),
                TALK,
            ]
        )
    lines = [f"you are *{role}* in this task. commands:", *command_lines(role, config.commands)]
    lines.append(TALK)
    return "\n".join(lines)


def render_without_task(commands: Iterable[CommandSpec[BaseModel]], *, ended: bool = False) -> str:
    """The help in a place with no task: how to start one, and what its owner can then do.

    What the bot answers itself when ``/task help`` finds no task, or one that has ended
    (``ended``; issues 11 and 26: help works anywhere); whoever starts the task owns it, so
    the owner's commands are listed. Where a task has ended, a mention starts a new one, so
    the help does not say a mention talks to the task.
    """
    first = (
        "this channel's task has ended: mention me with what you need to start a new one"
        if ended
        else "there is no task here yet: mention me with what you need to start one"
    )
    lines = [f"{first}; you will own it and can use:", *command_lines(Role.OWNER, commands)]
    return "\n".join(lines if ended else [*lines, TALK])


def command_lines(role: Role, commands: Iterable[CommandSpec[BaseModel]]) -> list[str]:
    """``• `usage` — summary`` for each command ``role`` may use, in registry order."""
    lines = []
    for spec in commands:
        full = refusal(spec, role, "x") is None
        bare = spec.bare_is_read_only and refusal(spec, role, "") is None
        if full:
            lines.append(f"• `{spec.usage}` — {spec.summary}")
        elif bare:
            lines.append(f"• `{spec.invocation}` — {spec.summary} (you can only look)")
    return lines


async def body(ctx: CommandInvokedContext, args: HelpArgs, config: CommandConfig) -> CommandResult:
    """Render the help for the sender's role."""
    return CommandResult(reply=render(ctx.role, config))


SPEC: Final = CommandSpec(
    name=NAME,
    summary="list the commands you can use here",
    arguments="",
    args=HelpArgs,
    parse=parse,
    body=body,
    open_to_all=True,
)
USAGE: Final = SPEC.usage
