"""A task as a value: where it lives, who takes part, what it is asked, where it stands.

Plain frozen values only; the hook contexts of a task's life live in
:mod:`harness.hooks.contexts.task`, and the workflow that runs a task in
:mod:`harness.temporal`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal, get_args

from harness.domain.frozen import Frozen
from harness.domain.progress import (
    DEFAULT_MID_TURN,
    ApprovalDefault,
    BudgetUsage,
    MidTurn,
    PendingQuestion,
    TurnProgress,
)

Effort = Literal["low", "medium", "high"]
"""How hard the task's model thinks (``/effort``); the one place the levels are written."""

EFFORTS: Final[tuple[Effort, ...]] = get_args(Effort)
"""The effort levels in order, lowest first: what ``/effort`` offers and the workflow accepts."""

DEFAULT_EFFORT: Final[Effort] = "medium"
"""A task's effort until ``/effort`` changes it."""


class TaskStatus(StrEnum):
    """Where a task is in its life; the last three are final (:data:`FINAL_STATUSES`)."""

    CREATED = "created"
    RUNNING = "running"
    WAITING = "waiting"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINAL_STATUSES: Final = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELLED})
"""The statuses a task never leaves: it has ended."""


class Role(StrEnum):
    """A person's role in one task. ``none`` is a sender who is not a participant."""

    OWNER = "owner"
    COLLABORATOR = "collaborator"
    WATCHER = "watcher"
    NONE = "none"


class Participant(Frozen):
    """Someone who takes part in a task, with their role in it."""

    user_id: str
    role: Role
    name: str = ""


class TaskRef(Frozen):
    """Where a task lives: its workflow id and the Slack place it is bound to."""

    task_id: str
    team: str = ""
    channel: str = ""
    thread: str = ""
    parent_id: str | None = None


class SubtaskSummary(Frozen):
    """A child task as its parent sees it: from its reports while it runs, its outcome after."""

    task_id: str
    title: str
    status: TaskStatus
    turn: TurnProgress | None = None
    """Its turn as it last reported it (``None``: none running, or it never said)."""
    pending: tuple[PendingQuestion, ...] = ()
    """Its open questions (and its own sub-tasks')."""
    usage: BudgetUsage = BudgetUsage()
    """What it has used, as far as its parent knows."""
    answer: str = ""
    """Its answer to its prompt, once it ended with one (cut; the thread has it whole)."""


class TaskSnapshot(Frozen):
    """A task's state at one moment, as a query returns it."""

    ref: TaskRef
    title: str = ""
    status: TaskStatus = TaskStatus.CREATED
    model: str = ""
    effort: Effort = DEFAULT_EFFORT
    participants: tuple[Participant, ...] = ()
    subtasks: tuple[SubtaskSummary, ...] = ()
    mid_turn: MidTurn = DEFAULT_MID_TURN
    approvals: ApprovalDefault | None = None
    """The task's approval default; ``None``: the worker's (the hooks file's ``[approvals]``)."""
    turn: TurnProgress | None = None
    """The turn running now (current step, elapsed time from ``started_at``); ``None``: idle."""
    queued: int = 0
    """Messages waiting for the turn to end."""
    last_error: str = ""
    pending: tuple[PendingQuestion, ...] = ()
    budget: BudgetUsage = BudgetUsage()
    approved_tools: tuple[str, ...] = ()
    """Tools approved for the rest of the task ("don't ask again")."""


class TaskSpec(Frozen):
    """What a new task is asked to do and how."""

    title: str
    prompt: str = ""
    owner: str
    model: str = ""
    effort: Effort = DEFAULT_EFFORT
    parent_id: str | None = None
    mid_turn: MidTurn = DEFAULT_MID_TURN
    """What a message arriving mid-turn does (``/task mid-turn``)."""


class RequestRoute(Frozen):
    """Where an incoming request goes: a new task, or a message to an existing one.

    ``new_task`` means "open the task ``task_id`` if it is not running, then deliver";
    otherwise the request is only delivered, and fails if that task has ended.
    """

    task_id: str
    new_task: bool
    text: str
