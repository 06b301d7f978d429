"""Context of a slash command: who sent it, their role in the task, and the task as it was."""

from __future__ import annotations

from harness.domain import CommandResult, Role, TaskSnapshot
from harness.hooks.contexts.base import HookContext


class CommandInvokedContext(
    HookContext, operation="command.invoked", local=True, policy=("pre",), attempts=1, body=False
):
    """A slash command. ``role`` is derived by the task's workflow, never taken from the caller."""

    command: str
    args: str = ""
    invocation: str = ""
    """How the command is typed bare (``/model``, ``/task status``): the bot sets it from the
    registry, so a reply the harness writes names the command as people type it
    (:mod:`harness.replies`). Empty: replies show ``/task <command>``."""
    sender: str
    role: Role = Role.NONE
    snapshot: TaskSnapshot | None = None
    result: CommandResult | None = None
