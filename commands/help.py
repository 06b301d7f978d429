"""``/task help``: the commands the sender may use in this task, generated from the registry."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from pydantic import BaseModel

from commands.guard import refusal
from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from harness import replies
from harness.domain import CommandResult, Role
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "help"


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
    shown = Role.COLLABORATOR if role is Role.NONE else role
    return replies.help_for(role, command_lines(shown, config.commands))


def render_without_task(commands: Iterable[CommandSpec[BaseModel]], *, ended: bool = False) -> str:
    """The help in a place with no task: how to start one, and what its owner can then do.

    What the bot answers itself when ``/task help`` finds no task, or one that has ended
    (``ended``; issues 11 and 26: help works anywhere); whoever starts the task owns it, so
    the owner's commands are listed.
    """
    return replies.help_without_task(command_lines(Role.OWNER, commands), ended=ended)


def command_lines(role: Role, commands: Iterable[CommandSpec[BaseModel]]) -> list[str]:
    """``• `usage` — summary`` for each command ``role`` may use, in registry order."""
    lines = []
    for spec in commands:
        full = refusal(spec, role, "x") is None
        bare = spec.bare_is_read_only and refusal(spec, role, "") is None
        if full:
            lines.append(replies.command_line(spec.usage, spec.summary))
        elif bare:
            lines.append(replies.command_line(spec.invocation, spec.summary, looks_only=True))
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
