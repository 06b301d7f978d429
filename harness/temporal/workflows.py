"""TaskWorkflow: one durable workflow per task; it holds the task's state and applies decisions.

Workflow code never does I/O and never runs hooks: every hook-wrapped operation runs
as an activity through :class:`harness.temporal.retries.OperationRunner`, and the
workflow applies what comes back (DESIGN.md, "Where decisions and actions happen").
Roles are derived here from the task's own participants, never taken from a caller.
"""

from __future__ import annotations

import asyncio
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from harness.hooks.contexts import (
        ChannelMessage,
        CommandEffect,
        CommandInvokedContext,
        Participant,
        PersistenceReadContext,
        PersistenceWriteContext,
        Role,
        SubtaskSpawnedContext,
        SubtaskSpec,
        SubtaskSummary,
        TaskCompleteContext,
        TaskCreatedContext,
        TaskSnapshot,
        TaskSpec,
        TaskStateChangedContext,
        TaskStatus,
    )
    from harness.temporal import (
        COMMAND_INVOKED,
        GAVE_UP_ERROR_TYPE,
        PERSISTENCE_READ,
        PERSISTENCE_WRITE,
        SUBTASK_SPAWNED,
        TASK_COMPLETE,
        TASK_CREATED,
        TASK_STATE_CHANGED,
        TASK_WORKFLOW,
    )
    from harness.temporal.models import (
        FINAL_STATUSES,
        TRANSCRIPT,
        FinishRequest,
        GaveUp,
        TaskInput,
        TaskOutcome,
    )
    from harness.temporal.retries import OperationRunner

_EFFORTS = ("low", "medium", "high")


@workflow.defn(name=TASK_WORKFLOW)
class TaskWorkflow:
    """A task: participants with roles, model, effort, status, transcript and sub-tasks."""

    @workflow.init
    def __init__(self, task: TaskInput) -> None:
        self._input = task
        self._ref = task.ref
        self._title = task.spec.title
        self._model = task.spec.model
        self._effort = task.spec.effort
        self._status = TaskStatus.CREATED
        self._participants = {p.user_id: p for p in task.participants}
        self._participants.setdefault(
            task.spec.owner, Participant(user_id=task.spec.owner, role=Role.OWNER)
        )
        self._transcript: tuple[ChannelMessage, ...] = ()
        self._children: dict[str, SubtaskSummary] = {}
        self._finish: FinishRequest | None = None
        self._started = False
        self._ops = OperationRunner(task.policy)
        self._transcript_lock = asyncio.Lock()

    @workflow.run
    async def run(self, task: TaskInput) -> TaskOutcome:
        """Create the task, run it until asked to finish and its sub-tasks ended, complete it."""
        try:
            created = await self._ops.run(
                TASK_CREATED, TaskCreatedContext(**self._common(), spec=task.spec)
            )
            self._apply_spec(created.result or task.spec)
            stored = await self._ops.run(
                PERSISTENCE_READ, PersistenceReadContext(**self._common(), key=self._key)
            )
            if stored.result is not None and stored.result.content:
                self._transcript = TRANSCRIPT.validate_json(stored.result.content)
            await self._transition(TaskStatus.RUNNING, "started")
            self._started = True
            await workflow.wait_condition(lambda: self._finish is not None)
            await workflow.wait_condition(
                lambda: (
                    workflow.all_handlers_finished()
                    and all(c.status in FINAL_STATUSES for c in self._children.values())
                )
            )
            finish = self._finish or FinishRequest()
            await self._transition(finish.status, finish.summary)
            done = await self._ops.run(
                TASK_COMPLETE,
                TaskCompleteContext(
                    **self._common(),
                    status=self._status,
                    summary=finish.summary,
                    outputs={"transcript": self._key},
                ),
            )
        except ApplicationError:
            self._status = TaskStatus.FAILED
            raise
        return TaskOutcome(
            task_id=self._ref.task_id, status=self._status, summary=done.result or finish.summary
        )

    @workflow.query(name="snapshot")
    def snapshot(self) -> TaskSnapshot:
        """The task as it is now."""
        return TaskSnapshot(
            ref=self._ref,
            title=self._title,
            status=self._status,
            model=self._model,
            effort=self._effort,
            participants=tuple(self._participants.values()),
            subtasks=tuple(self._children.values()),
        )

    @workflow.query(name="transcript")
    def transcript(self) -> tuple[ChannelMessage, ...]:
        """The task's messages, oldest first."""
        return self._transcript

    @workflow.update(name="message")
    async def message(self, message: ChannelMessage) -> int:
        """Append a message to the transcript and persist it; returns its position (from 1).

        A message whose ``ts`` is already in the transcript is not added again.
        """
        await workflow.wait_condition(lambda: self._started)
        async with self._transcript_lock:
            for index, seen in enumerate(self._transcript, start=1):
                if message.ts and seen.ts == message.ts:
                    return index
            transcript = (*self._transcript, message)
            await self._ops.run(
                PERSISTENCE_WRITE,
                PersistenceWriteContext(
                    **self._common(message.ts),
                    key=self._key,
                    content=TRANSCRIPT.dump_json(transcript).decode(),
                ),
            )
            self._transcript = transcript
            return len(transcript)

    @message.validator
    def _check_message(self, message: ChannelMessage) -> None:
        self._check_open()
        if not message.text.strip():
            raise ValueError("empty message")

    @workflow.update(name="command")
    async def command(self, ctx: CommandInvokedContext) -> str:
        """Run a slash command's hooks in an activity, apply its effects, return the reply."""
        await workflow.wait_condition(lambda: self._started)
        update = workflow.current_update_info()
        ctx = ctx.model_copy(
            update={
                **self._common(ctx.correlation_id or (update.id if update else "")),
                "role": self.role_of(ctx.sender),
                "snapshot": self.snapshot(),
            }
        )
        try:
            out = await self._ops.run(COMMAND_INVOKED, ctx, max_attempts=1)
            if out.sender != ctx.sender or out.role != ctx.role:
                return f"/{ctx.command} failed: an executor changed the sender or the role"
            if out.result is None:
                return f"/{ctx.command} failed: no handler for /{ctx.command}"
            for effect in out.result.effects:
                await self._apply(effect, ctx)
        except ApplicationError as error:
            return _reply_for(ctx.command, error)
        return out.result.reply

    @command.validator
    def _check_command(self, ctx: CommandInvokedContext) -> None:
        self._check_open()
        if ctx.task is not None and ctx.task.task_id != self._ref.task_id:
            raise ValueError(f"command addressed to {ctx.task.task_id}, not {self._ref.task_id}")

    @workflow.update(name="finish")
    def finish(self, request: FinishRequest) -> None:
        """Ask the task to end with ``request.status`` once its sub-tasks ended."""
        self._finish = request

    @finish.validator
    def _check_finish(self, request: FinishRequest) -> None:
        self._check_open()
        if request.status not in FINAL_STATUSES:
            raise ValueError(f"{request.status} is not a final status")

    def role_of(self, user_id: str) -> Role:
        """The role ``user_id`` holds in this task (``none`` for strangers)."""
        participant = self._participants.get(user_id)
        return participant.role if participant else Role.NONE

    @property
    def _key(self) -> str:
        return f"{self._ref.task_id}/transcript"

    def _common(self, correlation_id: str = "") -> dict[str, Any]:
        return {
            "task": self._ref,
            "participants": tuple(self._participants.values()),
            "correlation_id": correlation_id or self._input.correlation_id or self._ref.task_id,
        }

    def _check_open(self) -> None:
        if self._status in FINAL_STATUSES or self._finish is not None:
            raise ValueError(f"task {self._ref.task_id} has finished")

    def _apply_spec(self, spec: TaskSpec) -> None:
        self._title, self._model, self._effort = spec.title, spec.model, spec.effort

    async def _transition(self, to: TaskStatus, reason: str) -> None:
        out = await self._ops.run(
            TASK_STATE_CHANGED,
            TaskStateChangedContext(
                **self._common(), from_status=self._status, to_status=to, reason=reason
            ),
        )
        self._status = out.result or to

    async def _apply(self, effect: CommandEffect, ctx: CommandInvokedContext) -> None:
        if effect.kind == "set_model":
            self._model = effect.value
        elif effect.kind == "set_effort":
            if effect.value not in _EFFORTS:
                raise ApplicationError(f"effort must be one of {', '.join(_EFFORTS)}")
            self._effort = effect.value  # type: ignore[assignment]  # checked just above
        elif effect.kind == "grant_role":
            role = Role(effect.value)
            self._participants[effect.user_id] = Participant(user_id=effect.user_id, role=role)
        elif effect.subtask is not None:
            await self.spawn(effect.subtask, ctx.correlation_id)

    async def spawn(self, spec: SubtaskSpec, correlation_id: str = "") -> SubtaskSummary:
        """Run ``subtask.spawned`` and start the sub-task it returns as a child workflow."""
        number = len(self._children) + 1
        spec = spec.model_copy(
            update={"task_id": spec.task_id or f"{self._ref.task_id}/sub-{number}"}
        )
        out = await self._ops.run(
            SUBTASK_SPAWNED, SubtaskSpawnedContext(**self._common(correlation_id), spec=spec)
        )
        final = out.result or spec
        child = TaskInput(
            ref=self._ref.model_copy(
                update={"task_id": final.task_id, "parent_id": self._ref.task_id}
            ),
            spec=TaskSpec(
                title=final.title,
                prompt=final.prompt,
                owner=final.requested_by,
                model=final.model or self._model,
                effort=final.effort,
                parent_id=self._ref.task_id,
            ),
            participants=tuple(self._participants.values()),
            correlation_id=correlation_id or self._input.correlation_id,
            policy=self._input.policy,
        )
        handle = await workflow.start_child_workflow(
            TASK_WORKFLOW, child, id=final.task_id, result_type=TaskOutcome
        )
        summary = SubtaskSummary(
            task_id=final.task_id, title=final.title, status=TaskStatus.RUNNING
        )
        self._children[final.task_id] = summary
        # No handle kept: run() waits on the status this watcher sets.
        asyncio.create_task(self._watch(summary, handle))  # noqa: RUF006
        return summary

    async def _watch(
        self, summary: SubtaskSummary, handle: workflow.ChildWorkflowHandle[Any, TaskOutcome]
    ) -> None:
        """Report the child's completion to this (parent) task."""
        try:
            status = (await handle).status
        except ChildWorkflowError:
            status = TaskStatus.FAILED
        self._children[summary.task_id] = summary.model_copy(update={"status": status})


def _reply_for(command: str, error: ApplicationError) -> str:
    """``refused: <reason>`` for an abort in a pre chain, ``/<name> failed: …`` otherwise."""
    if error.type == GAVE_UP_ERROR_TYPE and error.details:
        gave_up = GaveUp.model_validate(error.details[0])
        if gave_up.abort_point.endswith(".pre"):
            return f"refused: {gave_up.abort_reason}"
        return f"/{command} failed: {gave_up.error_message}"
    return f"/{command} failed: {error.message}"
