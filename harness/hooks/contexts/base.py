"""The fields every hook context carries, and the value types shared between contexts.

A context is a frozen pydantic model: executors return ``ctx.model_copy(update=...)``
or ``None``. Per-operation subclasses live beside this module, one per operation
family; :func:`harness.hooks.contexts.context_type` maps names to them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field


class Frozen(BaseModel):
    """Immutable, closed-world value: unknown fields are errors, not silently kept."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Role(StrEnum):
    """A person's role in one task. ``none`` is a sender who is not a participant."""

    OWNER = "owner"
    COLLABORATOR = "collaborator"
    WATCHER = "watcher"
    NONE = "none"


class Participant(Frozen):
    """Someone who takes part in a task, with their role in it."""

    user_id: str
    role: Role
    name: str = ""


class TaskRef(Frozen):
    """Where a task lives: its workflow id and the Slack place it is bound to."""

    task_id: str
    team: str = ""
    channel: str = ""
    thread: str = ""
    parent_id: str | None = None


class HookContext(Frozen):
    """Fields common to every operation's context (DESIGN.md, "Semantics").

    ``idempotency_key`` stays the same across retries of one operation so that
    executors with side effects can deduplicate; ``attempt`` counts from 1.
    ``result`` is empty until the operation's body sets it; subclasses narrow its type.
    """

    operation: ClassVar[str] = ""

    task: TaskRef | None = None
    participants: tuple[Participant, ...] = ()
    entities: dict[str, str] = Field(default_factory=dict)
    correlation_id: str = ""
    attempt: int = Field(default=1, ge=1)
    idempotency_key: str = ""
    result: Any = None

    def role_of(self, user_id: str) -> Role:
        """The role ``user_id`` holds among this context's participants."""
        for participant in self.participants:
            if participant.user_id == user_id:
                return participant.role
        return Role.NONE
