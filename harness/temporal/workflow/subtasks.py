"""A task's sub-tasks: child workflows it spawns, watches and, when it ends, cancels.

Workflow code (runs in the sandbox, deterministic); used by
:class:`harness.temporal.workflow.task.TaskWorkflow`, which owns the task's own state.
The policy, stated once: a parent that finishes gives running children a grace
period, then cancels the rest and names them in its summary; a parent that is
cancelled cancels them at once; a parent that closes any other way leaves Temporal
to cancel them (``ParentClosePolicy.REQUEST_CANCEL``). Every child ends through its
own ``cancelled`` transition and ``task.complete``, and reports back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, is_cancelled_exception
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from harness.domain import (
        BudgetUsage,
        Participant,
        SubtaskSpec,
        SubtaskSummary,
        TaskSpec,
        TaskStatus,
    )
    from harness.domain.task import FINAL_STATUSES
    from harness.hooks.contexts import SubtaskSpawnedContext
    from harness.temporal import TASK_WORKFLOW
    from harness.temporal.models import TaskInput, TaskOutcome
    from harness.temporal.workflow.retries import OperationRunner


class Children:
    """The sub-tasks of one task.

    Args:
        parent: the parent task's input (its ref, correlation id and activity policy).
        ops: the parent's operation runner (``subtask.spawned`` runs through it).
    """

    def __init__(
        self,
        parent: TaskInput,
        ops: OperationRunner,
        on_usage: Callable[[BudgetUsage], None] | None = None,
    ) -> None:
        self._parent = parent
        self._ops = ops
        self._on_usage = on_usage
        self._children: dict[str, SubtaskSummary] = {}

    def summaries(self) -> tuple[SubtaskSummary, ...]:
        """Every sub-task with its last known status, in spawn order."""
        return tuple(self._children.values())

    def running(self) -> list[str]:
        """Ids of the sub-tasks that have not ended."""
        return [c.task_id for c in self._children.values() if c.status not in FINAL_STATUSES]

    async def spawn(
        self,
        spec: SubtaskSpec,
        common: dict[str, Any],
        *,
        model: str,
        participants: tuple[Participant, ...],
    ) -> SubtaskSpec:
        """Run ``subtask.spawned`` and start the sub-task it returns as a child workflow.

        Args:
            spec: what the sub-task should do (``task_id`` may be empty).
            common: the parent's common context fields (task, participants, correlation).
            model: the parent's model, used when the spec names none.
            participants: the parent's people; the child starts with the same roles.

        Returns:
            The spec the child was started with (its ``task_id`` filled in).
        """
        ref = self._parent.ref
        number = len(self._children) + 1
        spec = spec.model_copy(update={"task_id": spec.task_id or f"{ref.task_id}/sub-{number}"})
        out = await self._ops.run(SubtaskSpawnedContext(**common, spec=spec))
        final = out.result or spec
        child = TaskInput(
            ref=ref.model_copy(update={"task_id": final.task_id, "parent_id": ref.task_id}),
            spec=TaskSpec(
                title=final.title,
                prompt=final.prompt,
                owner=final.requested_by,
                model=final.model or model,
                effort=final.effort,
                parent_id=ref.task_id,
            ),
            participants=participants,
            correlation_id=str(common.get("correlation_id") or self._parent.correlation_id),
            policy=self._parent.policy,
        )
        # REQUEST_CANCEL: if the parent closes without ending a child (it failed, or was
        # terminated), the child is cancelled and still reports, instead of vanishing.
        handle = await workflow.start_child_workflow(
            TASK_WORKFLOW,
            child,
            id=final.task_id,
            result_type=TaskOutcome,
            parent_close_policy=ParentClosePolicy.REQUEST_CANCEL,
        )
        summary = SubtaskSummary(
            task_id=final.task_id, title=final.title, status=TaskStatus.RUNNING
        )
        self._children[final.task_id] = summary
        # No handle kept: end() and snapshots read the status this watcher sets.
        asyncio.create_task(self._watch(summary, handle))  # noqa: RUF006
        return final

    async def end(self, grace: float) -> tuple[str, ...]:
        """Let running sub-tasks end within ``grace`` seconds, then cancel the rest.

        Returns:
            The ids of the sub-tasks that had to be cancelled.
        """
        if self.running() and grace > 0:
            try:
                await workflow.wait_condition(lambda: not self.running(), timeout=grace)
            except TimeoutError:
                pass
        left = tuple(self.running())
        for task_id in left:
            try:
                await workflow.get_external_workflow_handle(task_id).cancel()
            except Exception as error:  # it ended between the check and the cancel
                workflow.logger.info("sub-task %s not cancelled: %s", task_id, error)
        if left:
            try:
                await workflow.wait_condition(
                    lambda: not self.running(), timeout=self._parent.policy.start_to_close_seconds
                )
            except TimeoutError:
                workflow.logger.warning("sub-tasks still running after cancel: %s", self.running())
        return left

    async def _watch(
        self, summary: SubtaskSummary, handle: workflow.ChildWorkflowHandle[Any, TaskOutcome]
    ) -> None:
        """Record the child's final status when it ends."""
        try:
            outcome = await handle
            status = outcome.status
            if self._on_usage is not None:
                self._on_usage(outcome.usage)
        except ChildWorkflowError as error:
            cancelled = is_cancelled_exception(error)
            status = TaskStatus.CANCELLED if cancelled else TaskStatus.FAILED
        self._children[summary.task_id] = summary.model_copy(update={"status": status})


def with_cancelled(summary: str, cancelled: tuple[str, ...]) -> str:
    """The summary, naming the sub-tasks the end of their parent cancelled."""
    if not cancelled:
        return summary
    note = f"cancelled {len(cancelled)} running sub-task(s): " + ", ".join(cancelled)
    return f"{summary} ({note})" if summary else note
