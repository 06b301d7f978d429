"""The task's own state as its handlers and parts read it: identity, people, settings, status.

Workflow code (sandboxed, deterministic); a mixin of
:class:`~harness.temporal.workflow.task.TaskWorkflow`, split from it by concept: the
workflow's handlers change this state, its parts (the conversation, the questions, the
endings) read it through :mod:`harness.temporal.workflow.host`'s Protocols. Roles are derived
here from the task's own participants, never taken from a caller.
"""

from __future__ import annotations

from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.domain import (
        Effort,
        MidTurn,
        Participant,
        Role,
        TaskRef,
        TaskSpec,
        TaskStatus,
    )
    from harness.domain.task import FINAL_STATUSES
    from harness.temporal.models import FinishRequest, TaskInput, transcript_key


class TaskState:
    """What a task is now (a mixin of TaskWorkflow, which sets every attribute)."""

    _input: TaskInput
    _ref: TaskRef
    _title: str
    _model: str
    _effort: Effort
    _mid_turn: MidTurn
    _alive: bool
    _status: TaskStatus
    _participants: dict[str, Participant]
    _finish: FinishRequest | None
    _cancelling: bool

    @property
    def ref(self) -> TaskRef:
        """The task's ref."""
        return self._ref

    @property
    def participants(self) -> tuple[Participant, ...]:
        """The task's people, with their roles."""
        return tuple(self._participants.values())

    @property
    def model(self) -> str:
        """The model ``/model`` set (the loop's requests use it)."""
        return self._model

    @property
    def effort(self) -> Effort:
        """The effort ``/effort`` set."""
        return self._effort

    @property
    def status(self) -> TaskStatus:
        """The task's status."""
        return self._status

    @property
    def finishing(self) -> bool:
        """Whether the task is ending (``/task finish``, ``/task cancel``, or cancelled)."""
        return self._finish is not None or self._cancelling

    @property
    def mid_turn(self) -> MidTurn:
        """What a message arriving mid-turn does."""
        return self._mid_turn

    @property
    def alive(self) -> bool:
        """Whether this run has progress, stop and mid-turn modes (not a replayed old run)."""
        return self._alive

    def correlation(self, correlation_id: str = "") -> str:
        """The correlation id a context carries (the task's own when none is given)."""
        return str(self._common(correlation_id)["correlation_id"])

    def role_of(self, user_id: str) -> Role:
        """The role ``user_id`` holds in this task (``none`` for strangers)."""
        participant = self._participants.get(user_id)
        return participant.role if participant else Role.NONE

    @property
    def _key(self) -> str:
        return transcript_key(self._ref.task_id)

    def _common(self, correlation_id: str = "") -> dict[str, Any]:
        return {
            "task": self._ref,
            "participants": tuple(self._participants.values()),
            "correlation_id": correlation_id or self._input.correlation_id or self._ref.task_id,
        }

    def _check_open(self) -> None:
        if self._status in FINAL_STATUSES or self._finish is not None:
            raise ValueError(replies.TASK_FINISHED)  # said in Slack: no id

    def _apply_spec(self, spec: TaskSpec) -> None:
        self._title, self._model, self._effort = spec.title, spec.model, spec.effort
