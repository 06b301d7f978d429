"""``/task status``: the task as its snapshot shows it (what runs, what waits, settings, sub-tasks).

What the view shows and how is :mod:`commands.status_view`; this is the command.
"""

from __future__ import annotations

from typing import Final

from commands.spec import Args, CommandConfig, CommandSpec, no_arguments
from commands.status_view import render
from harness.domain import CommandResult
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "status"


class StatusArgs(Args):
    """No arguments."""


def parse(text: str) -> StatusArgs:
    """Nothing.

    Raises:
        UsageError: any text.
    """
    no_arguments(text, command=NAME, usage=USAGE)
    return StatusArgs()


async def body(
    ctx: CommandInvokedContext, args: StatusArgs, config: CommandConfig
) -> CommandResult:
    """Render the snapshot the workflow attached, timed by the configured clock."""
    if ctx.snapshot is None:
        return CommandResult(reply="no task state is available yet")
    now = config.clock.now().timestamp()
    return CommandResult(
        reply=render(
            ctx.snapshot,
            now=now,
            ui_url=config.temporal_ui_url,
            namespace=config.temporal_namespace,
        )
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="show the task: what runs and waits, settings, budget, sub-tasks",
    arguments="",
    args=StatusArgs,
    parse=parse,
    body=body,
)
USAGE: Final = SPEC.usage
