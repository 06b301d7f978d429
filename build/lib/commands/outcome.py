"""The in-process runner of ``command.invoked``: what a task's workflow does, without Temporal.

:func:`run_command` is what the command tests run. It answers by the one reply rule the
workflow uses too (:mod:`harness.channels.replies`): a refusal is ``refused: <reason>``,
a command that failed is ``/model failed: <message>`` (spelled as typed, ``/task status
failed: …`` under the umbrella), a post replacement is the reply as it stands, and a
command nobody answered is not a command here. Effects are returned, never applied (workflows act).
"""

from __future__ import annotations

from typing import Final

from commands.registry import invocation_of
from commands.spec import failed
from harness.channels import replies
from harness.domain import CommandResult
from harness.hooks import HookAbort, HookManager
from harness.hooks.contexts import CommandInvokedContext

OPERATION: Final = "command.invoked"


def outcome_reply(
    command: str,
    *,
    result: CommandResult | None = None,
    error: BaseException | None = None,
    typed: str = "",
) -> CommandResult:
    """Map one run's outcome to what is replied and applied.

    Args:
        command: the command's name, with or without the slash.
        result: the context's ``result`` after post, when the run finished.
        error: what the run raised instead.
        typed: how the command was typed (the context's ``invocation``); ``""``: as the
            registry spells it.

    Returns:
        ``result`` itself when it is set and nothing was raised; otherwise a result
        with the reply text and no effects.
    """
    shown = replies.spelled(command, typed or invocation_of(command))
    if isinstance(error, HookAbort):
        if replies.is_refusal(refusal=error.refusal, point=error.point or ""):
            return CommandResult(reply=replies.refused(error.reason))
        return failed(shown, error.reason)
    if error is not None:
        return failed(shown, error)
    return result if result is not None else CommandResult(reply=replies.unknown(shown))


async def run_command(manager: HookManager, ctx: CommandInvokedContext) -> CommandResult:
    """Run ``command.invoked`` for ``ctx`` and never raise for what executors did.

    ``ctx`` gets the registry's spelling when it carries none, as the bot gives it. Only
    ``asyncio.CancelledError`` and other ``BaseException`` subclasses propagate, so a
    cancelled activity stays cancelled.
    """
    if not ctx.invocation:
        ctx = ctx.model_copy(update={"invocation": invocation_of(ctx.command)})
    try:
        out = await manager.run(OPERATION, ctx)
    except Exception as error:
        return outcome_reply(ctx.command, error=error, typed=ctx.invocation)
    if out.sender != ctx.sender or out.role != ctx.role:  # as the workflow checks
        return CommandResult(reply=replies.refused(replies.IDENTITY_CHANGED))
    return outcome_reply(ctx.command, result=out.result, typed=ctx.invocation)
