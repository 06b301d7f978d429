"""From a finished (or cancelled) ``command.invoked`` run to the reply the sender reads.

Pure functions the command runner uses — in the worker's activity, which cannot
import this package (harness never imports commands), the same four rules apply and
:func:`run_command` is their reference: a refusal is ``refused: <reason>``, a body
that raised is ``/<name> failed: <message>``, a post replacement is the reply as it
stands, and a command nobody handles says so. Only a result's effects are ever applied.
"""

from __future__ import annotations

from typing import Final

from commands import help
from commands.spec import command_name, failed
from harness.domain import CommandResult
from harness.hooks import HookAbort, HookManager
from harness.hooks.contexts import CommandInvokedContext

OPERATION: Final = "command.invoked"


def refused(reason: str) -> CommandResult:
    """The reply to a refusal; no effects, so the task stays as it was."""
    return CommandResult(reply=f"refused: {reason}")


def unknown(name: str) -> CommandResult:
    """The reply when no body set a result: nobody handles ``<name>``."""
    shown = command_name(name)
    return CommandResult(reply=f"unknown command `{shown}`; try `{help.SPEC.invocation}`")


def outcome_reply(
    command: str,
    *,
    result: CommandResult | None = None,
    error: BaseException | None = None,
) -> CommandResult:
    """Map one run's outcome to what is replied and applied.

    Args:
        command: the command's name, with or without the slash.
        result: the context's ``result`` after post, when the run finished.
        error: what the run raised instead.

    Returns:
        ``result`` itself when it is set and nothing was raised; otherwise a result
        with the reply text and no effects.
    """
    if isinstance(error, HookAbort):
        return refused(error.reason) if error.refusal else failed(command, error.reason)
    if error is not None:
        return failed(command, error)
    return result if result is not None else unknown(command)


async def run_command(manager: HookManager, ctx: CommandInvokedContext) -> CommandResult:
    """Run ``command.invoked`` for ``ctx`` and never raise for what executors did.

    Only ``asyncio.CancelledError`` and other ``BaseException`` subclasses propagate,
    so a cancelled activity stays cancelled.
    """
    try:
        out = await manager.run(OPERATION, ctx)
    except Exception as error:
        return outcome_reply(ctx.command, error=error)
    return outcome_reply(ctx.command, result=out.result)
