"""What the parts of a task workflow need from it: its identity, people, settings, status.

Workflow code. :class:`~harness.temporal.workflows.TaskWorkflow` is the one implementation;
the Protocols keep its parts (the conversation, the questions) from importing it.
"""

from __future__ import annotations

from typing import Protocol

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.domain import Effort, MidTurn, Participant, TaskRef, TaskStatus


class TaskHost(Protocol):
    """The task's ref, status and how its status changes."""

    @property
    def ref(self) -> TaskRef: ...

    @property
    def status(self) -> TaskStatus: ...

    @property
    def finishing(self) -> bool:
        """Whether the task was asked to end (its last transition is the ending's)."""
        ...

    async def transition(self, to: TaskStatus, reason: str) -> None: ...


class ConversationHost(TaskHost, Protocol):
    """What the conversation needs from its task workflow."""

    @property
    def participants(self) -> tuple[Participant, ...]: ...

    @property
    def model(self) -> str: ...

    @property
    def effort(self) -> Effort: ...

    @property
    def mid_turn(self) -> MidTurn: ...

    @property
    def alive(self) -> bool:
        """Whether this run has issue 14's turns (progress, stop, mid-turn modes): a history
        started before them replays without (``workflow.patched``)."""
        ...

    def correlation(self, correlation_id: str = "") -> str: ...
