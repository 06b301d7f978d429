"""``/help``: the commands the sender may use in this task, generated from the registry."""

from __future__ import annotations

from typing import Final

from commands.guard import refusal
from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from harness.hooks.contexts import CommandInvokedContext, CommandResult, Role

NAME: Final = "help"
USAGE: Final = "/help"


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
    """One line per command ``role`` may use; bare-only forms are marked as such."""
    lines = [f"you are *{role}* in this task. commands:"]
    for spec in config.commands:
        full = refusal(spec, role, "x") is None
        bare = spec.bare_is_read_only and refusal(spec, role, "") is None
        if full:
            lines.append(f"• `{spec.usage}` — {spec.summary}")
        elif bare:
            lines.append(f"• `/{spec.name}` — {spec.summary} (you can only look)")
    lines.append("mention me in a thread to talk to the task.")
    return "\n".join(lines)


async def body(ctx: CommandInvokedContext, args: HelpArgs, config: CommandConfig) -> CommandResult:
    """Render the help for the sender's role."""
    return CommandResult(reply=render(ctx.role, config))


SPEC: Final = CommandSpec(
    name=NAME,
    summary="list the commands you can use here",
    usage=USAGE,
    args=HelpArgs,
    parse=parse,
    body=body,
)
