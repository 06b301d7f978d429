"""Context of a slash command: who sent it, their role in the task, and the task as it was."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import CommandResult, Role, TaskSnapshot
from harness.hooks.contexts.base import HookContext


class CommandInvokedContext(HookContext):
    """A slash command. ``role`` is derived by the task's workflow, never taken from the caller."""

    operation: ClassVar[str] = "command.invoked"
    command: str
    args: str = ""
    sender: str
    role: Role = Role.NONE
    snapshot: TaskSnapshot | None = None
    result: CommandResult | None = None
