"""How a task ends: its last transition, ``task.complete``, and what the thread is told.

Workflow code (sandboxed, deterministic); a mixin of
:class:`~harness.temporal.workflow.task.TaskWorkflow`. Every ending goes through the same
hooked activities as any transition; a failure to report a failure is logged, never
re-entered.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.domain import ChannelMessage, TaskRef, TaskStatus
    from harness.domain.task import FINAL_STATUSES
    from harness.hooks.contexts import TaskCompleteContext, TaskStateChangedContext
    from harness.temporal import SUBTASK_ONE_END_PATCH
    from harness.temporal.models import TaskOutcome, transcript_key
    from harness.temporal.workflow.conversation import Conversation
    from harness.temporal.workflow.retries import OperationRunner


class TaskEndings:
    """The end of a task (a mixin of TaskWorkflow)."""

    _ops: OperationRunner
    _ref: TaskRef
    _status: TaskStatus
    _alive: bool
    _linked: bool
    _title: str
    _conversation: Conversation

    def _common(self, correlation_id: str = "") -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    async def _end_as(
        self, status: TaskStatus, summary: str, *, answer: str = "", own: bool = False
    ) -> TaskOutcome:
        """End with ``status``; the thread hears how, and that a new task may start.

        Args:
            status: the final status.
            summary: what ``task.complete`` is told.
            answer: a sub-task's answer to its request, for its parent.
            own: a sub-task ends by itself, its request over (not by its parent's end).
        """
        try:
            await self._transition(status, summary)
            done = await self._complete(summary)
        except ApplicationError as error:
            await self._report_failure(error)
            raise
        # A sub-task's last line says how it ended, not how to start a task; a turn its
        # parent's end cut off said that already, in its one end line (issue 26).
        child = bool(self._ref.parent_id) and self._linked
        said = child and self._conversation.said_its_end and workflow.patched(SUBTASK_ONE_END_PATCH)
        if self._alive and not said:
            text = (
                replies.subtask_ended(self._title, self._status, by_itself=own)
                if child
                else replies.task_ended(
                    done, subtask=self._ref.parent_id is not None, task_id=self._ref.task_id
                )
            )
            await self._conversation.post(
                ChannelMessage(channel=self._ref.channel, thread=self._ref.thread, text=text)
            )
        return TaskOutcome(
            task_id=self._ref.task_id,
            status=self._status,
            summary=done,
            usage=self._conversation.state.budget,
            answer=answer,
        )

    async def _complete(self, summary: str) -> str:
        done = await self._ops.run(
            TaskCompleteContext(
                **self._common(),
                status=self._status,
                summary=summary,
                outputs={"transcript": transcript_key(self._ref.task_id)},
            ),
        )
        return done.result or summary

    async def _report_failure(self, error: ApplicationError) -> None:
        """Run the ``failed`` transition and ``task.complete`` for a task that gave up.

        Through the same hooked activities (and retries) as any transition; if they
        give up too there is nobody left to tell, so the task is marked failed here
        and the original error stands. Never re-enters itself.
        """
        if self._status in FINAL_STATUSES:  # task.complete itself gave up: already reported
            return
        reason = error.message
        try:
            await self._transition(TaskStatus.FAILED, reason)
            await self._complete(reason)
        except ApplicationError as again:
            workflow.logger.warning("could not report the failure of the task: %s", again)
        self._status = TaskStatus.FAILED

    async def _transition(self, to: TaskStatus, reason: str) -> None:
        out = await self._ops.run(
            TaskStateChangedContext(
                **self._common(), from_status=self._status, to_status=to, reason=reason
            ),
        )
        self._status = out.result or to
