"""Context of a slash command: who sent it, their role in the task, and the task as it was."""

from __future__ import annotations

from typing import ClassVar, Literal

from harness.hooks.contexts.base import Frozen, HookContext, Role
from harness.hooks.contexts.plan import SubtaskSpec
from harness.hooks.contexts.task import TaskSnapshot


class CommandEffect(Frozen):
    """A change the workflow applies after the command's activity returns (workflows act)."""

    kind: Literal[
        "set_model", "set_effort", "spawn_subtask", "grant_role", "load_skill", "unload_skill"
    ]
    value: str = ""
    user_id: str = ""
    subtask: SubtaskSpec | None = None


class CommandResult(Frozen):
    """The reply to post, who sees it, and the effects to apply.

    ``public`` is for replies everyone in the task's channel should see (a change of
    model, effort or people, a new sub-task); refusals, errors and read-only answers
    stay private to the sender, so a channel is not flooded with one person's lookups.
    """

    reply: str
    effects: tuple[CommandEffect, ...] = ()
    public: bool = False


class CommandInvokedContext(HookContext):
    """A slash command. ``role`` is derived by the task's workflow, never taken from the caller."""

    operation: ClassVar[str] = "command.invoked"
    command: str
    args: str = ""
    sender: str
    role: Role = Role.NONE
    snapshot: TaskSnapshot | None = None
    result: CommandResult | None = None
