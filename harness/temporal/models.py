"""Inputs and outputs of the task workflow that are not hook contexts.

Pure pydantic values (no I/O), so the workflow sandbox may pass this module through.
Context classes themselves live in :mod:`harness.hooks.contexts`.
"""

from __future__ import annotations

from typing import Final

from pydantic import Field, TypeAdapter

from harness.hooks.contexts import (
    ChannelMessage,
    Frozen,
    Participant,
    TaskRef,
    TaskSpec,
    TaskStatus,
)

FINAL_STATUSES: Final = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELLED})

TRANSCRIPT: Final = TypeAdapter(tuple[ChannelMessage, ...])
"""How a transcript is stored as an artefact (JSON array of messages)."""


class ActivityPolicy(Frozen):
    """How long each activity attempt may take and how many attempts an operation gets.

    Travels in the workflow input because workflow code cannot read settings.
    """

    start_to_close_seconds: float = Field(default=120.0, gt=0)
    heartbeat_seconds: float = Field(default=10.0, gt=0)
    max_attempts: int = Field(default=5, ge=1)


class TaskInput(Frozen):
    """What starts a task workflow."""

    ref: TaskRef
    spec: TaskSpec
    participants: tuple[Participant, ...] = ()
    correlation_id: str = ""
    policy: ActivityPolicy = ActivityPolicy()


class FinishRequest(Frozen):
    """Asks a task to end with a final status (the agent loop will decide this itself)."""

    status: TaskStatus = TaskStatus.SUCCEEDED
    summary: str = ""
    requested_by: str = ""


class TaskOutcome(Frozen):
    """What a finished task workflow returns (and what a parent learns of its child)."""

    task_id: str
    status: TaskStatus
    summary: str = ""


class GaveUp(Frozen):
    """Details of the ``TaskGaveUp`` error: the operation, the last failure, and why it stopped."""

    operation: str
    attempt: int
    reason: str
    error_type: str = ""
    error_message: str = ""
    abort_point: str = ""
    """The point of a ``HookAbort`` that caused it ("" otherwise); a ``.pre`` abort is a refusal."""
    abort_reason: str = ""


def task_id_for(team: str, channel: str, thread: str = "") -> str:
    """The workflow id of the task bound to a Slack place (team, channel, optional thread)."""
    parts = [team or "-", channel or "-"] + ([thread] if thread else [])
    return "task/" + "/".join(parts)
