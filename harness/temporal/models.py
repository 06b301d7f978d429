"""Inputs and outputs of the task workflow that are not hook contexts.

Pure pydantic values (no I/O), so the workflow sandbox may pass this module through.
Context classes themselves live in :mod:`harness.hooks.contexts`.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Final, Literal, TypeVar

from pydantic import Field, JsonValue, TypeAdapter

from harness.agent.state import AgentState
from harness.domain import (
    BudgetUsage,
    ChannelMessage,
    Frozen,
    Participant,
    PendingQuestion,
    TaskRef,
    TaskSpec,
    TaskStatus,
    TurnProgress,
)
from harness.hooks import HookContext
from harness.hooks.contexts import RequestReceivedContext

C = TypeVar("C", bound=HookContext)

TRANSCRIPT: Final = TypeAdapter(tuple[ChannelMessage, ...])
"""How a transcript was stored as an artefact (JSON array of messages), before it became a
log (:mod:`harness.temporal.workflow.transcript`); still read once to move it over."""


class TranscriptRef(Frozen):
    """A task's transcript by reference: its length in the store, and the last messages."""

    length: int = 0
    recent: tuple[ChannelMessage, ...] = ()


class ActivityPolicy(Frozen):
    """How long each activity attempt may take and how many attempts an operation gets.

    Travels in the workflow input because workflow code cannot read settings.
    """

    start_to_close_seconds: float = Field(default=120.0, gt=0)
    heartbeat_seconds: float = Field(default=10.0, gt=0)
    max_attempts: int = Field(default=5, ge=1)
    max_worker_losses: int = Field(default=10, ge=0)
    """How often one attempt may lose its worker (die, stop) and be started again, uncounted."""


class TaskInput(Frozen):
    """What starts a task workflow."""

    ref: TaskRef
    spec: TaskSpec
    participants: tuple[Participant, ...] = ()
    correlation_id: str = ""
    policy: ActivityPolicy = ActivityPolicy()
    agent: AgentState | None = None
    """The agent loop's state carried over by continue-as-new (``None``: a new task)."""
    continued: bool = False
    """A continued run: the task exists already, so ``task.created`` does not run again."""
    transcript: TranscriptRef | None = None
    """The transcript a continued run starts from (``None``: read it from the store)."""
    latest_thread: str = ""
    """The thread of the task's last turn, carried by continue-as-new (``""``: its first)."""


class HelpClick(Frozen):
    """A click on a help request's button, as the bot forwards it to the task."""

    request_id: str
    user: str
    choice: str


class SubtaskReport(Frozen):
    """What a running sub-task tells its parent as it goes (issue 26): what it has used so far,
    the questions it waits on, and the one a reply in the thread answers (``""``: none)."""

    task_id: str
    usage: BudgetUsage = BudgetUsage()
    pending: tuple[PendingQuestion, ...] = ()
    reply_to: str = ""
    turn: TurnProgress | None = None
    """Its turn as it goes (``subtask-ends-v1``): what ``/task status sub-N`` shows of it."""


class TurnStop(Frozen):
    """A parent asks a sub-task to stop its turn in ``by``'s name (``/task stop sub-N``)."""

    by: str
    reason: str = ""


class FinishRequest(Frozen):
    """Asks a task to end with a final status (the agent loop will decide this itself).

    Sub-tasks still running get ``children_grace_seconds`` to end on their own; the
    rest are cancelled (each runs its own ``cancelled`` transition and
    ``task.complete``) and named in the parent's summary. A parent never waits
    forever on a child, and never leaves one running unseen.
    """

    status: TaskStatus = TaskStatus.SUCCEEDED
    summary: str = ""
    requested_by: str = ""
    children_grace_seconds: float = Field(default=10.0, ge=0)


class RequestInput(Frozen):
    """What starts the short workflow that runs ``request.received`` in the worker."""

    request: RequestReceivedContext
    policy: ActivityPolicy = ActivityPolicy()


class Delivery(Frozen):
    """What became of a request: the task it reached, whether it started it, where it sits."""

    task_id: str
    started: bool
    """A new task was started for it (``False``: it joined a running one)."""
    position: int
    """The message's position in the task's transcript (from 1)."""


class TaskOutcome(Frozen):
    """What a finished task workflow returns (and what a parent learns of its child)."""

    task_id: str
    status: TaskStatus
    summary: str = ""
    usage: BudgetUsage = BudgetUsage()
    """What the task used (its own sub-tasks included); the parent adds it to its budget."""
    answer: str = ""
    """A sub-task's answer to its prompt, cut at :data:`ANSWER_CHARS` (``""``: none); its
    parent's status shows the gist."""


ANSWER_CHARS: Final = 1000
"""How much of a sub-task's answer its parent keeps (the thread has it whole)."""


class GaveUp(Frozen):
    """Details of the ``TaskGaveUp`` error: the operation, the last failure, and why it stopped.

    The shape histories have always held, derived from the operation's outcome by
    :class:`~harness.temporal.workflow.failures.GaveUpError` (the ``abort_*`` fields for a refusal
    that had to be a failure, such as a refused ``task.created``); the client reads it
    into the reason a person reads (:mod:`harness.temporal.client.error_mapping`).
    """

    operation: str
    attempt: int
    reason: str
    error_type: str = ""
    error_message: str = ""
    abort_point: str = ""
    """The point of a ``HookAbort`` that caused it ("" otherwise); a ``.pre`` abort is a refusal."""
    abort_reason: str = ""
    abort_refusal: bool = False
    """The abort was raised as a refusal (``HookAbort(refusal=True)``), whatever its phase."""
    user_message: str = ""
    """The failure in one human sentence, if the error gave one (``HarnessError.user_message``)."""


class Changed(Frozen):
    """What an operation's chains changed in its context: the result of a ``*-changes-v1``
    activity (:func:`harness.hooks.catalogue.changes_name`).

    The workflow has the context it sent; a result that echoed all of it wrote every
    context to history twice (identity, participants, the turn's progress, the tool list:
    issue 27). Built by :func:`changes`, read back by :func:`applied`.
    """

    outcome: Literal["changed"] = "changed"
    fields: dict[str, JsonValue] = Field(default_factory=dict)
    """Each changed field as JSON, by name; a field not here is as it was sent."""


def changes(sent: HookContext, out: HookContext, leave: Collection[str] = ()) -> Changed:
    """The fields of ``out`` that differ from ``sent``, but those in ``leave`` (a row's
    ``unechoed``: inputs the workflow never reads back)."""
    names = {
        name
        for name in type(out).model_fields
        if name not in leave and getattr(out, name) != getattr(sent, name)
    }
    if not names:
        return Changed()
    # An executor may leave a list where a tuple is declared: JSON has one array for both.
    return Changed(fields=out.model_dump(mode="json", include=names, warnings=False))


def applied(sent: C, changed: Changed) -> C:
    """``sent`` with what the chains changed: the context a full result would have been."""
    if not changed.fields:
        return sent
    # The fields kept are the sent values themselves (pydantic takes its own models as
    # they are); only the changed ones are validated from their JSON.
    return type(sent).model_validate({**dict(sent), **changed.fields})


def transcript_key(task_id: str) -> str:
    """The store key of a task's transcript (the workflow appends to it, the client reads it)."""
    return f"{task_id}/transcript"


def task_id_for(team: str, channel: str) -> str:
    """The workflow id of a channel's task: one active task per channel.

    Slash commands carry no thread, so the channel is what both a command and a
    thread reply can name; the thread a task was started from is kept on its
    :class:`TaskRef`, and threads are mapped to tasks by whoever sees them (the bot).
    A finished task's id is free again: the next request in the channel starts anew.
    """
    return f"task/{team or '-'}/{channel or '-'}"
