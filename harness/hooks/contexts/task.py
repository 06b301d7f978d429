"""Contexts of a task's life: a request arrives, a task is created, changes state, completes."""

from __future__ import annotations

from harness.domain import EMPTY, FrozenStrMap, RequestRoute, TaskSpec, TaskStatus
from harness.hooks.contexts.base import HookContext


class RequestReceivedContext(HookContext, operation="request.received", local=True):
    """A plain message (not a command) addressed to the harness."""

    text: str
    sender: str
    channel: str = ""
    thread: str = ""
    event_id: str = ""
    ts: str = ""
    """The message's own timestamp: a message delivered twice with one ``ts`` is kept once."""
    result: RequestRoute | None = None


class TaskCreatedContext(HookContext, operation="task.created", local=True):
    """A task is about to exist; the body returns the spec it starts with."""

    spec: TaskSpec
    result: TaskSpec | None = None


class TaskStateChangedContext(HookContext, operation="task.state_changed", local=True):
    """A task moves from one status to another; the body returns the status applied."""

    from_status: TaskStatus
    to_status: TaskStatus
    reason: str = ""
    result: TaskStatus | None = None


class TaskCompleteContext(HookContext, operation="task.complete", local=True):
    """A task reached a final status; the body returns the summary posted for it."""

    status: TaskStatus
    summary: str = ""
    outputs: FrozenStrMap = EMPTY
    result: str | None = None
