"""Contexts of a task's life: a request arrives, a task is created, changes state, completes."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Literal

from harness.hooks.contexts.base import (
    EMPTY,
    Frozen,
    FrozenStrMap,
    HookContext,
    Participant,
    TaskRef,
)

Effort = Literal["low", "medium", "high"]


class TaskStatus(StrEnum):
    """Where a task is in its life; the last three are final."""

    CREATED = "created"
    RUNNING = "running"
    WAITING = "waiting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class SubtaskSummary(Frozen):
    """A child task as its parent sees it."""

    task_id: str
    title: str
    status: TaskStatus


class TaskSnapshot(Frozen):
    """A task's state at one moment, as a query returns it."""

    ref: TaskRef
    title: str = ""
    status: TaskStatus = TaskStatus.CREATED
    model: str = ""
    effort: Effort = "medium"
    participants: tuple[Participant, ...] = ()
    subtasks: tuple[SubtaskSummary, ...] = ()


class TaskSpec(Frozen):
    """What a new task is asked to do and how."""

    title: str
    prompt: str = ""
    owner: str
    model: str = ""
    effort: Effort = "medium"
    parent_id: str | None = None


class RequestRoute(Frozen):
    """Where an incoming request goes: a new task, or a message to an existing one.

    ``new_task`` means "open the task ``task_id`` if it is not running, then deliver";
    otherwise the request is only delivered, and fails if that task has ended.
    """

    task_id: str
    new_task: bool
    text: str


class RequestReceivedContext(HookContext):
    """A plain message (not a command) addressed to the harness."""

    operation: ClassVar[str] = "request.received"
    text: str
    sender: str
    channel: str = ""
    thread: str = ""
    event_id: str = ""
    ts: str = ""
    """The message's own timestamp: a message delivered twice with one ``ts`` is kept once."""
    result: RequestRoute | None = None


class TaskCreatedContext(HookContext):
    """A task is about to exist; the body returns the spec it starts with."""

    operation: ClassVar[str] = "task.created"
    spec: TaskSpec
    result: TaskSpec | None = None


class TaskStateChangedContext(HookContext):
    """A task moves from one status to another; the body returns the status applied."""

    operation: ClassVar[str] = "task.state_changed"
    from_status: TaskStatus
    to_status: TaskStatus
    reason: str = ""
    result: TaskStatus | None = None


class TaskCompleteContext(HookContext):
    """A task reached a final status; the body returns the summary posted for it."""

    operation: ClassVar[str] = "task.complete"
    status: TaskStatus
    summary: str = ""
    outputs: FrozenStrMap = EMPTY
    result: str | None = None
