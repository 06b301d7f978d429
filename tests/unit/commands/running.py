"""Run a command as the task's workflow does, in process: the one command step both take.

:func:`harness.temporal.workflow.command_step.run_command` is the workflow's rule
(:func:`~harness.temporal.workflow.command_step.command_result`) over the manager's outcome; the
context gets the registry's spelling first, as the bot gives it.
"""

from __future__ import annotations

from commands import invocation_of
from harness.domain import CommandResult
from harness.hooks import HookManager
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal.workflow import command_step


async def run_command(manager: HookManager, ctx: CommandInvokedContext) -> CommandResult:
    if not ctx.invocation:
        ctx = ctx.model_copy(update={"invocation": invocation_of(ctx.command)})
    return await command_step.run_command(manager, ctx)
