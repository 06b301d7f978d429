"""A sub-task's line to its parent: what it has used and what it asks, told as it goes.

Workflow code (sandboxed, deterministic); the child's side of issue 26. Before each of
its loop's operations (a model or tool call, a post in the thread) a sub-task sends its
parent a :class:`~harness.temporal.models.SubtaskReport` when anything in it changed, so
the parent's budget counts the sub-task while it runs and the parent's status lists, and
its thread answers, the sub-task's questions. The parent's side is
:mod:`harness.temporal.workflow.subtasks`; a parent that has ended is not told again.
"""

from __future__ import annotations

from collections.abc import Callable

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.domain import TaskRef
    from harness.temporal import SUBTASK_SIGNAL
    from harness.temporal.models import SubtaskReport


class ParentLink:
    """Reports a sub-task to its parent; does nothing for a task that has none.

    Args:
        ref: the task's ref (``parent_id`` names the parent).
        linked: whether this run reports (``workflow.patched``: an old history does not).
        read: the report as the task is now.
    """

    def __init__(self, ref: TaskRef, linked: bool, read: Callable[[], SubtaskReport]) -> None:
        self._parent = ref.parent_id if linked else None
        self._read = read
        self._last: SubtaskReport | None = None

    async def report(self) -> None:
        """Signal the parent the report as it is now, if it changed since the last one."""
        if not self._parent:
            return
        now = self._read()
        if now == self._last:
            return
        self._last = now
        try:
            await workflow.get_external_workflow_handle(self._parent).signal(SUBTASK_SIGNAL, now)
        except Exception as error:  # the parent closed: nobody to tell any more
            workflow.logger.info("sub-task report not delivered: %s", error)
            self._parent = None
