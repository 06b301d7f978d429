"""The one command list: every slash command's spec, in the order ``/task help`` lists them.

The bot's routing and replies (``bot.slash``, ``bot.payloads``, ``bot.replies``), ``/task
help`` and the generated Slack manifest (``bot.manifest``) all read :data:`COMMANDS`
(re-exported as ``commands.COMMANDS``);
adding a command is its module and one line here. What each command does is its module's
:class:`~commands.spec.CommandSpec`; how the list is typed in Slack is :mod:`commands.surface`.
"""

from __future__ import annotations

from typing import Final

from commands import (
    approvals,
    budget,
    cancel,
    effort,
    finish,
    help,
    invite,
    midturn,
    model,
    skill,
    status,
    stop,
    subtask,
)
from commands.spec import Registry
from harness.replies.umbrella import command_name

COMMANDS: Final[Registry] = {
    spec.name: spec  # type: ignore[misc]  # each spec is invariant in its own Args type
    for spec in (
        model.SPEC,
        effort.SPEC,
        subtask.SPEC,
        status.SPEC,
        stop.SPEC,
        finish.SPEC,
        cancel.SPEC,
        midturn.SPEC,
        approvals.SPEC,
        budget.SPEC,
        invite.SPEC,
        skill.SPEC,
        help.SPEC,
    )
}


def invocation_of(command: str, registry: Registry = COMMANDS) -> str:
    """How ``command`` is typed bare (``/model``, ``/task status``); ``""`` when not registered.

    What the bot puts in a command's context (``CommandInvokedContext.invocation``), so the
    harness's replies spell it so too.
    """
    spec = registry.get(command_name(command))
    return spec.invocation if spec is not None else ""


__all__ = ["COMMANDS", "Registry", "invocation_of"]
