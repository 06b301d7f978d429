"""A turn as people follow it in Slack: the progress message, the plan's steps, the budget.

Plain values the task workflow keeps (durable: a worker restart continues the same
message, because its ``ts`` is workflow state) and hands to the channel side in each
loop context's ``entities`` (:data:`PROGRESS_ENTITY`), where the progress reporter renders
them. Nothing here does I/O.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from harness.domain.frozen import Frozen

StepState = Literal["pending", "running", "done", "failed", "skipped"]
"""Where one plan step is."""

TurnState = Literal["running", "waiting", "answered", "failed", "stopped"]
"""Where a turn is: ``waiting`` for a person (a question, an approval, a budget)."""

MidTurn = Literal["steer", "queue", "interrupt"]
"""What a message arriving while a turn runs does (a task setting, ``/task mid-turn``):
``steer`` is injected into the agent's context at the next safe boundary, ``queue``
waits for the turn to end, ``interrupt`` stops the turn and starts again with it."""

MID_TURN_MODES: Final[tuple[MidTurn, ...]] = get_args(MidTurn)
DEFAULT_MID_TURN: Final[MidTurn] = "steer"

ApprovalDefault = Literal["strict", "safe", "off"]
"""A task's approval default: ``strict`` asks before every tool not inherently safe,
``safe`` only before the tools a rule or the tool itself marks as needing approval,
``off`` never asks (rules that deny still deny)."""

APPROVAL_DEFAULTS: Final[tuple[ApprovalDefault, ...]] = get_args(ApprovalDefault)
DEFAULT_APPROVALS: Final[ApprovalDefault] = "safe"

BudgetLimit = Literal["tokens", "tool_calls", "cost"]
"""A limit of a task's budget, as a ``set_budget`` effect names it (:class:`BudgetUsage`)."""

BUDGET_LIMITS: Final[tuple[BudgetLimit, ...]] = get_args(BudgetLimit)

PROGRESS_ENTITY: Final = "progress"
"""The ``entities`` key of a loop context that carries the turn's :class:`TurnProgress` as JSON."""


def duration(seconds: float) -> str:
    """``45 s``, ``2 min 05 s``, ``1 h 03 min``: a wait, a timeout or a turn's length, to the
    second (the one way the thread, the progress message and the status view say it)."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


class StepProgress(Frozen):
    """One step of the turn's plan as shown: its title, state and a short outcome."""

    title: str
    state: StepState = "pending"
    note: str = ""


class TurnProgress(Frozen):
    """What the progress message of one turn shows, kept by the task workflow.

    Attributes:
        message_ts: the progress message (``""`` until it is posted).
        request_ts: the person's message the turn answers (reactions go on it).
        channel: where both are.
        thread: the task's thread.
        started_at: when the turn started (epoch seconds, workflow time).
        steps: the plan, when the turn has one.
        doing: what runs now, in a few words (``thinking``, ``running calculator``).
        state: the turn's state.
        model_calls: model calls made so far in this turn.
        tool_calls: tool calls made so far in this turn.
    """

    message_ts: str = ""
    request_ts: str = ""
    channel: str = ""
    thread: str = ""
    started_at: float = 0.0
    steps: tuple[StepProgress, ...] = ()
    doing: str = ""
    state: TurnState = "running"
    model_calls: int = 0
    tool_calls: int = 0


class BudgetUsage(Frozen):
    """A task's limits and what it used against them (sub-tasks and named agents included).

    A limit of 0 is no limit. ``cost`` is in the configured prices' currency (USD), 0 when
    no model prices are configured.
    """

    tokens: int = 0
    token_limit: int = 0
    tool_calls: int = 0
    tool_call_limit: int = 0
    cost: float = 0.0
    cost_limit: float = 0.0


class PendingQuestion(Frozen):
    """A question or approval the task waits on, as the status view lists it."""

    request_id: str
    kind: str
    question: str
    asked_at: float = 0.0
    timeout_seconds: float = 0.0
    subtask: str = ""
    """Which sub-task asks (``sub-task 1``), as its parent lists it; ``""``: this task."""
