"""A task's sub-tasks: child workflows it spawns, watches and, when it ends, cancels.

Workflow code (runs in the sandbox, deterministic); used by
:class:`harness.temporal.workflow.task.TaskWorkflow`, which owns the task's own state.
The policy, stated once: a parent that finishes gives running children a grace
period, then cancels the rest and names them in its summary; a parent that is
cancelled cancels them at once; a parent that closes any other way leaves Temporal
to cancel them (``ParentClosePolicy.REQUEST_CANCEL``). Every child ends through its
own ``cancelled`` transition and ``task.complete``, and reports back.

While a child runs it reports (:mod:`harness.temporal.workflow.parent`, issue 26): what it used is
added to the parent's budget as it goes (the rest when it ends), its open questions are
the parent's to list, and a click or a thread reply answering one reaches it through its
parent (:meth:`Children.forward`). A child waiting on people is not waited for at a finish.

A child posts in the thread of its parent's latest turn when it was spawned (the turn
running then, or else the last one: a slash command carries no thread), and a reply
answers its question there (:data:`~harness.temporal.SUBTASK_THREAD_PATCH`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, NamedTuple

from temporalio import workflow
from temporalio.exceptions import ChildWorkflowError, is_cancelled_exception
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.budget import spent_since
    from harness.domain import (
        BudgetUsage,
        ChannelMessage,
        Participant,
        PendingQuestion,
        SubtaskSpec,
        SubtaskSummary,
        TaskSpec,
        TaskStatus,
    )
    from harness.domain.task import FINAL_STATUSES
    from harness.hooks.contexts import SubtaskSpawnedContext
    from harness.temporal import (
        ANSWER_SIGNAL,
        STOP_SIGNAL,
        STOP_TURN_SIGNAL,
        SUBTASK_STOP_PATCH,
        SUBTASK_THREAD_PATCH,
        TASK_WORKFLOW,
    )
    from harness.temporal.models import (
        HelpClick,
        SubtaskReport,
        TaskInput,
        TaskOutcome,
        TurnStop,
    )
    from harness.temporal.workflow.retries import OperationRunner


class Cut(NamedTuple):
    """The sub-tasks an end (or a roll-over) cancelled, as each was: working, or waiting on a
    person (a question or an approval open)."""

    running: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()


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
        self._reports: dict[str, SubtaskReport] = {}
        self._counted: dict[str, BudgetUsage] = {}
        self._starting: set[str] = set()
        self._threads: dict[str, str] = {}
        """Where each child posts: task id -> its thread (where a reply answers it)."""

    def summaries(self) -> tuple[SubtaskSummary, ...]:
        """Every sub-task with its last known status (a running one as it last reported: its
        turn, questions and usage; ``waiting`` while its turn waits on a person), in spawn
        order."""
        return tuple(
            _as_reported(s, r)
            if (r := self._reports.get(s.task_id)) is not None and s.status not in FINAL_STATUSES
            else s
            for s in self._children.values()
        )

    def running(self) -> list[str]:
        """Ids of the sub-tasks that have not ended."""
        return [c.task_id for c in self._children.values() if c.status not in FINAL_STATUSES]

    def took(self, report: SubtaskReport) -> BudgetUsage | None:
        """A running child's report: what it used since its last one (``None``: not ours)."""
        summary = self._children.get(report.task_id)
        starting = report.task_id in self._starting  # it may report before its start resolves
        if not starting and (summary is None or summary.status in FINAL_STATUSES):
            return None
        self._reports[report.task_id] = report
        before = self._counted.get(report.task_id, BudgetUsage())
        self._counted[report.task_id] = report.usage
        return spent_since(report.usage, before)

    def pending(self) -> tuple[PendingQuestion, ...]:
        """The running children's open questions, each saying which sub-task asks."""
        found: list[PendingQuestion] = []
        for task_id, report in self._reports.items():
            label = replies.subtask_label(task_id) or "a sub-task"
            found += [
                q.model_copy(update={"subtask": f"{label}, {q.subtask}" if q.subtask else label})
                for q in report.pending
            ]
        return tuple(found)

    def asking(self, request_id: str) -> str:
        """The running child whose open question ``request_id`` is (``""``: none)."""
        return next(
            (
                t
                for t, r in self._reports.items()
                if any(q.request_id == request_id for q in r.pending)
            ),
            "",
        )

    def reply_for(self, message: ChannelMessage) -> HelpClick | None:
        """The answer ``message`` (a reply in the thread) gives a child's question that has no
        buttons, if one is open; :meth:`asking` names the child."""
        if not message.user:
            return None
        for task_id, report in self._reports.items():
            if report.reply_to and message.thread in ("", self._thread_of(task_id)):
                return HelpClick(request_id=report.reply_to, user=message.user, choice=message.text)
        return None

    def _thread_of(self, task_id: str) -> str:
        """The thread child ``task_id`` posts in (its parent's first, before the patch)."""
        return self._threads.get(task_id, self._parent.ref.thread)

    async def forward(self, click: HelpClick) -> None:
        """Hand a click or reply to the child whose question it answers (its ``help.decided``
        judges the person there, as it would here)."""
        if task_id := self.asking(click.request_id):
            await workflow.get_external_workflow_handle(task_id).signal(ANSWER_SIGNAL, click)

    async def stop(self, task_id: str, reason: str) -> None:
        """Ask a running child to stop its turn (it goes on waiting for nothing but its end)."""
        try:
            await workflow.get_external_workflow_handle(task_id).signal(STOP_SIGNAL, reason)
        except Exception as error:  # it ended meanwhile
            workflow.logger.info("sub-task %s not stopped: %s", task_id, error)

    async def stop_turn(self, task_id: str, by: str) -> bool:
        """Stop a running child's turn in ``by``'s name (``/task stop sub-N``); whether it was
        asked (not when it has ended, nor in a history from before)."""
        if task_id not in self.running() or not workflow.patched(SUBTASK_STOP_PATCH):
            return False
        try:
            await workflow.get_external_workflow_handle(task_id).signal(
                STOP_TURN_SIGNAL, TurnStop(by=by)
            )
        except Exception as error:  # it ended meanwhile
            workflow.logger.info("sub-task %s not stopped: %s", task_id, error)
            return False
        return True

    async def spawn(
        self,
        spec: SubtaskSpec,
        common: dict[str, Any],
        *,
        model: str,
        participants: tuple[Participant, ...],
        thread: str = "",
    ) -> SubtaskSpec:
        """Run ``subtask.spawned`` and start the sub-task it returns as a child workflow.

        Args:
            spec: what the sub-task should do (``task_id`` may be empty).
            common: the parent's common context fields (task, participants, correlation).
            model: the parent's model, used when the spec names none.
            participants: the parent's people; the child starts with the same roles.
            thread: the thread of the parent's latest turn, where the child posts (``""``:
                the parent's first).

        Returns:
            The spec the child was started with (its ``task_id`` filled in).
        """
        ref = self._parent.ref
        if workflow.patched(SUBTASK_THREAD_PATCH):
            ref = ref.model_copy(update={"thread": thread or ref.thread})
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
        self._starting.add(final.task_id)
        self._threads[final.task_id] = child.ref.thread
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
        self._starting.discard(final.task_id)
        # No handle kept: end() and snapshots read the status this watcher sets.
        asyncio.create_task(self._watch(summary, handle))  # noqa: RUF006
        return final

    async def end(self, grace: float) -> Cut:
        """Let running sub-tasks end within ``grace`` seconds, then cancel the rest.

        Returns:
            The ids of the sub-tasks that had to be cancelled, working or waiting on a person.
        """
        if self.running() and grace > 0:
            try:
                await workflow.wait_condition(lambda: not self._working(), timeout=grace)
            except TimeoutError:
                pass
        left = tuple(self.running())
        working = self._working()
        cut = Cut(
            running=tuple(t for t in left if t in working),
            waiting=tuple(t for t in left if t not in working),
        )
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
        return cut

    def _working(self) -> list[str]:
        """Running children not waiting on people (one that asks will not end on its own)."""
        return [t for t in self.running() if not (r := self._reports.get(t)) or not r.pending]

    async def _watch(
        self, summary: SubtaskSummary, handle: workflow.ChildWorkflowHandle[Any, TaskOutcome]
    ) -> None:
        """Record the child's final status when it ends."""
        ended: dict[str, Any]
        try:
            outcome = await handle
            before = self._counted.get(summary.task_id, BudgetUsage())
            if self._on_usage is not None:  # what its reports did not count yet
                self._on_usage(spent_since(outcome.usage, before))
            ended = {"status": outcome.status, "usage": outcome.usage, "answer": outcome.answer}
        except ChildWorkflowError as error:
            cancelled = is_cancelled_exception(error)
            ended = {"status": TaskStatus.CANCELLED if cancelled else TaskStatus.FAILED}
            if (report := self._reports.get(summary.task_id)) is not None:
                ended["usage"] = report.usage
        self._reports.pop(summary.task_id, None)  # its questions closed with it
        self._children[summary.task_id] = summary.model_copy(update=ended)


def _as_reported(summary: SubtaskSummary, report: SubtaskReport) -> SubtaskSummary:
    """A running sub-task as its last report says it is (issue 26: one waiting on a person
    is ``waiting``, as its own status and the progress message say, not ``running``)."""
    waiting = report.turn is not None and report.turn.state == "waiting"
    status = TaskStatus.WAITING if waiting else summary.status
    return summary.model_copy(
        update={
            "turn": report.turn,
            "pending": report.pending,
            "usage": report.usage,
            "status": status,
        }
    )


def with_cancelled(summary: str, cancelled: Cut) -> str:
    """The summary, naming the sub-tasks the end of their parent cancelled, each as it was
    (as the thread calls them, never by id: it is posted)."""
    if not cancelled.running and not cancelled.waiting:
        return summary
    note = replies.cancelled_subtasks(_labels(cancelled.running), _labels(cancelled.waiting))
    return f"{summary}; {note}" if summary else note


def _labels(task_ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(replies.subtask_label(t) or t for t in task_ids)
