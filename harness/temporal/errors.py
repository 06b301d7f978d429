"""Errors :class:`harness.temporal.client.HarnessClient` raises, so callers never catch Temporal's::

HarnessError                  harness.errors
└── TaskError                 a request to a task did not go through
    ├── TaskRejected          the task refused it (finished, invalid, or it failed)
    ├── TaskNotFound          no task with that id was ever started (or it was purged)
    └── TaskUnavailable       Temporal could not be reached
"""

from __future__ import annotations

from harness.errors import HarnessError


class TaskError(HarnessError):
    """A request to a task did not go through."""

    def __init__(self, *, task_id: str, reason: str) -> None:
        self.task_id = task_id
        self.reason = reason
        super().__init__(f"task {task_id}: {reason}")


class TaskRejected(TaskError):
    """The task refused the request: it has finished, the input is invalid, or it failed."""


class TaskNotFound(TaskError):
    """No task has this id: nothing was started there, so there is nothing to act on.

    Separate from :class:`TaskUnavailable` so a caller can tell "start one first"
    from "try again later" without reading the message text.
    """


class TaskUnavailable(TaskError):
    """Temporal could not be reached (or answered with an error that is not about the task)."""
