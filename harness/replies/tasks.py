"""A task's life in words: how it started, what a message sent mid-turn became, how a turn
or the task ended, and why the task refused a message.

The thread never reads an id here: a task's own is left out, a sub-task's is its label
(:mod:`harness.replies.subtasks`).
"""

from __future__ import annotations

import re
from typing import Final

from harness.domain import MidTurn, TaskStatus, TurnProgress
from harness.replies.progress import STARTING, calls

__all__ = [
    "EMPTY_MESSAGE",
    "NO_ANSWER",
    "NO_TARGET",
    "NO_TRANSCRIPTS",
    "OTHER_TASK",
    "TASK_FINISHED",
    "added_meanwhile",
    "already_ended",
    "ended_first",
    "mid_turn",
    "no_such_agent",
    "not_final",
    "not_stopped",
    "rolled_over",
    "stopped_first",
    "task_ended",
    "turn_stopped",
    "turns_used_up",
    "unrouted",
    "waiting_on",
]


TASK_FINISHED: Final = "this task has finished"
"""Why a finishing or ended task takes no more commands, messages or clicks (no id)."""

OTHER_TASK: Final = "this command is for another task"
"""Why a task's workflow does not take a command sent to another task (no ids)."""

NO_ANSWER: Final = "(no answer)"
"""What a turn that produced no text posts."""

NO_TARGET: Final = "a request needs a target task and some text"
"""Why ``task.requested`` routes nothing: no task named, or no text."""

NO_TRANSCRIPTS: Final = "this worker keeps no transcripts, so nothing of this task was stored"
"""Why a transcript write was not done: the worker was built without a transcript store."""

_MID_TURN: Final[dict[MidTurn, str]] = {
    "steer": "noted: the agent takes this into account at its next step",
    "queue": "queued: answered when the current turn ends ({waiting} waiting)",
    "interrupt": "stopping the current turn to answer this first",
}


def task_ended(done: str, *, subtask: bool, task_id: str = "") -> str:
    """What a task's thread reads when it ends (``done``: what ``task.complete`` said).

    A sub-task shares its parent's thread and channel, so it says nothing of starting
    another: a mention there reaches the parent (issue 26). No id reaches the thread
    either: the task's own (``task_id``), which the default ``task.complete`` line starts
    with, is left out, and a sub-task's is said as ``sub-task <n>``.
    """
    if task_id:
        done = done.removeprefix(f"{task_id} ")
        done = re.sub(rf"{re.escape(task_id)}/sub-([\w-]+)", r"sub-task \1", done)
    ended = f"This {'sub-task' if subtask else 'task'} {_how_ended(done)}."
    return ended if subtask else f"{ended} Mention me to start a new one here."


_ENDED: Final = {"succeeded": "is done", "failed": "has failed", "cancelled": "was cancelled"}


def _how_ended(done: str) -> str:
    """``has ended: finished by <@U1>`` from the default ``succeeded: finished by <@U1>``:
    the status said once, in words (issue 26: not ``ended: succeeded: …``)."""
    status, colon, said = done.partition(": ")
    if status not in _ENDED:
        return f"has ended: {done}" if done else "has ended"
    if not colon or (status != TaskStatus.SUCCEEDED and not said.startswith(status)):
        return _ENDED[status] + (f": {said}" if colon else "")
    return f"has ended: {said}"


def ended_first(reason: str, after: str) -> str:
    """The first line of a turn cut off because ``reason`` came first (a sub-task's parent
    ended): how the sub-task ended, in its one end line (issue 26)."""
    return f"cancelled after {after}: {reason} first."


def stopped_first(by: str, reason: str, after: str, *, ended: bool = False) -> str:
    """The first line of a stopped turn's summary: who stopped it (a user id, ``""``: not a
    person), why, after how long; ``ended``: the turn was a sub-task's one request, so this
    line is also how the sub-task ended, in its one end line (issue 26)."""
    who = f" by <@{by}>" if by else ""
    why = f" ({reason})" if reason else ""
    end = "; it has ended without an answer" if ended else ""
    return f"stopped{who}{why} after {after}{end}."


def waiting_on(question: str) -> str:
    """What a turn waiting on a person was doing, as a stop's summary says it."""
    return f"waiting for an answer: {question}"


def turn_stopped(
    progress: TurnProgress,
    *,
    by: str,
    reason: str,
    after: str,
    cut_off: bool,
    waits: bool,
    ended: bool = False,
) -> str:
    """What a stopped turn did and did not do, in a few honest lines: who stopped it (``by``)
    and why, after how long (``after``), the plan's steps done and not done, what it did last,
    and its calls. ``cut_off``: its task ended first (:func:`ended_first`); ``waits``: the
    task waits for a next message (not when it ends with this turn); ``ended``: its first line
    says the sub-task ended with it (:func:`stopped_first`)."""
    first = stopped_first(by, reason, after, ended=ended)
    lines = [ended_first(reason, after) if cut_off else first]
    done = [s.title for s in progress.steps if s.state == "done"]
    left = [s.title for s in progress.steps if s.state in ("pending", "running", "skipped")]
    if done:
        lines.append("done: " + "; ".join(done))
    if left:
        lines.append("not done: " + "; ".join(left))
    if progress.doing and progress.doing != STARTING:
        doing = progress.doing
        lines.append(f"last: {waiting_on(doing) if progress.state == 'waiting' else doing}")
    said = calls(progress.model_calls, progress.tool_calls, between=", ")
    lines.append(f"{said}. The task waits for your next message." if waits else f"{said}.")
    return "\n".join(lines)


def added_meanwhile(user: str, text: str) -> str:
    """What the model reads of a message that arrived while it worked (``steer``)."""
    who = f"<@{user}> " if user else ""
    return f"(while you were working, {who}added) {text}"


def turns_used_up(turns: int) -> str:
    """What a turn answers when its model turns ran out before a final answer."""
    noun = "model turn" if turns == 1 else "model turns"
    return f"(stopped after {turns} {noun} without a final answer)"


def not_stopped(stopping: bool) -> str:
    """The reply to a ``stop`` with nothing left to stop (only its sender sees it)."""
    if stopping:
        return "the turn is already being stopped; what it did follows in the thread"
    return "nothing is running: the task is waiting for your next message"


def mid_turn(mode: MidTurn, waiting: int) -> str:
    """What the sender of a message that arrived mid-turn reads of it (only they see it)."""
    said = _MID_TURN[mode].format(waiting=waiting)
    return f"{said} (mid-turn mode `{mode}`; `/task mid-turn` changes it)"


def rolled_over(why: str, cancelled: str) -> str:
    """What the thread is told when the run rolled over to a fresh one (``why``: which
    limit); ``cancelled`` says which running sub-tasks that cut off."""
    return f"this task reached its history limit ({why}) and continues in a fresh run; {cancelled}"


def already_ended(status: str, wanted: str) -> str:
    """Why a task in final ``status`` cannot change to ``wanted`` (``task.state_changed``)."""
    return f"task already {status}; cannot become {wanted}"


def no_such_agent(name: str, known: tuple[str, ...]) -> str:
    """Why ``agent.invoked`` ran nothing: no agent of that name is configured."""
    return f"no agent named {name!r} (configured: {', '.join(known) or 'none'})"


EMPTY_MESSAGE: Final = "empty message"
"""Why a task does not take a message with no text."""


def not_final(status: str) -> str:
    """Why a request to end a task with ``status`` is not taken: it is no final status."""
    return f"{status} is not a final status"


def unrouted() -> str:
    """Why a message was not delivered: no routing body gave it a task."""
    return "nothing decided which task this message is for, so no task took it"
