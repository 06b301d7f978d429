"""``/task status``: the task as its snapshot shows it (what runs, what waits, settings, sub-tasks).

``/task status sub-1`` shows one sub-task as its parent knows it (what runs, its plan, its
open questions, its usage, its answer once done; issue 26). What the view shows and how is
:mod:`commands.status_view`; this is the command.
"""

from __future__ import annotations

from typing import Final

from commands import which_subtask
from commands.spec import Args, CommandConfig, CommandSpec
from commands.status_view import render, render_subtask
from harness import replies
from harness.domain import CommandResult
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "status"


class StatusArgs(Args):
    """The sub-task to show, by its number (``None``: the task)."""

    subtask: int | None = None


def parse(text: str) -> StatusArgs:
    """Nothing, or a sub-task (``sub-1``, ``sub-task 1``, ``1``).

    Raises:
        UsageError: text that names no sub-task.
    """
    return StatusArgs(subtask=which_subtask.number(text, command=NAME, usage=USAGE))


async def body(
    ctx: CommandInvokedContext, args: StatusArgs, config: CommandConfig
) -> CommandResult:
    """Render the snapshot the workflow attached, timed by the configured clock."""
    if ctx.snapshot is None:
        return CommandResult(reply=replies.NO_STATE)
    now = config.clock.now().timestamp()
    if args.subtask is not None:
        found = which_subtask.find(ctx.snapshot, args.subtask)
        if isinstance(found, str):
            return CommandResult(reply=found)
        view = render_subtask(
            found, now=now, ui_url=config.temporal_ui_url, namespace=config.temporal_namespace
        )
        return CommandResult(reply=view)
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
    summary="show the task: what runs and waits, settings, budget, sub-tasks (or one of them)",
    arguments=which_subtask.ARGUMENT,
    args=StatusArgs,
    parse=parse,
    body=body,
)
USAGE: Final = SPEC.usage
