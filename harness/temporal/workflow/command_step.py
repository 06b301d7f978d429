"""The command step: what ``command.invoked``'s outcome comes to as the sender's result.

:func:`command_result` is the one rule both runners of a command go through: the task's
workflow (:meth:`harness.temporal.workflow.task.TaskWorkflow.command`, whose outcome comes from
the command's activity) and :func:`run_command` (in process, what the command tests run,
whose outcome comes from the manager). A refusal is ``refused: <reason>``, a failure
``/model failed: <sentence>`` (spelled as typed), a post replacement the reply as it
stands, a command nobody answered is not a command here, and a context that came back with
another sender or role is refused. Effects are returned, never applied (workflows act).
Workflow-safe: no I/O at import, so the workflow sandbox passes it through.
"""

from __future__ import annotations

from typing import Final

from harness import replies
from harness.domain import CommandResult
from harness.domain.outcome import Done, Failed, Outcome, stopped
from harness.errors import is_retryable
from harness.hooks import HookAbort, HookManager
from harness.hooks.contexts import CommandInvokedContext

OPERATION: Final = CommandInvokedContext.operation


def command_result(
    ctx: CommandInvokedContext, outcome: Outcome[CommandInvokedContext]
) -> CommandResult:
    """The result of running ``ctx``: the reply, and the effects to apply (none unless done).

    Args:
        ctx: the context as the command was sent (its sender and role are the task's).
        outcome: what performing it came to.
    """
    typed = replies.spelled(ctx.command, ctx.invocation)
    if not isinstance(outcome, Done):
        return CommandResult(reply=replies.command(typed, outcome))
    out = outcome.context
    if out.sender != ctx.sender or out.role != ctx.role:
        return CommandResult(reply=replies.refused(replies.IDENTITY_CHANGED))
    if out.result is None:
        return CommandResult(reply=replies.unknown(typed))
    return out.result


async def perform_in_process(
    manager: HookManager, ctx: CommandInvokedContext
) -> Outcome[CommandInvokedContext]:
    """``command.invoked`` on ``manager``, as the command's activity performs it, as an outcome.

    Only ``asyncio.CancelledError`` and other ``BaseException`` subclasses propagate, so a
    cancelled caller stays cancelled.
    """
    try:
        return Done(await manager.run(OPERATION, ctx))
    except HookAbort as abort:
        return stopped(abort)
    except Exception as error:
        said = getattr(error, "user_message", "")
        return Failed(
            operation=OPERATION,
            retryable=is_retryable(error),
            error_type=type(error).__name__,
            error_message=manager.redactor.redact_text(str(error)),
            user_message=said if isinstance(said, str) else "",
        )


async def run_command(manager: HookManager, ctx: CommandInvokedContext) -> CommandResult:
    """Run ``ctx``'s command in process and never raise for what executors did.

    ``ctx`` is taken as the bot sends it (with its ``invocation``) and the task sets it
    (sender, role, snapshot).
    """
    return command_result(ctx, await perform_in_process(manager, ctx))
