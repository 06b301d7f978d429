"""Sub-tasks in words: how a thread names one (``sub-task 1``, never its id), what it says when
one starts, ends or is stopped, and the replies about one that is not there.
"""

from __future__ import annotations

import re
from typing import Any, Final

from harness.domain import ChannelMessage, TaskStatus
from harness.replies.neutral import neutral

__all__ = [
    "PARENT_BUDGET_SPENT",
    "TASK_ENDED",
    "cancelled_subtasks",
    "labelled",
    "no_such_subtask",
    "not_a_subtask",
    "nothing_to_stop",
    "spawned",
    "starting_subtask",
    "stopping_subtask",
    "subtask_ended",
    "subtask_label",
    "subtask_number",
    "subtask_over",
    "subtask_state",
]


TASK_ENDED: Final = "the task it belongs to ended"
"""Why a sub-task's turn was cut off: its parent ended (finished or cancelled) first."""

PARENT_BUDGET_SPENT: Final = "the budget of the task it belongs to is used up"
"""Why a sub-task's turn was stopped by its parent (issue 26: its usage counts there)."""

_SUBTASK_ID: Final = re.compile(r"/sub-(\d+)$")


def subtask_label(task_id: str) -> str:
    """``sub-task 1`` for the id a sub-task gets by default (``…/sub-1``); ``""`` otherwise.

    What a thread calls a sub-task: never its id (issue 26).
    """
    number = subtask_number(task_id)
    return f"sub-task {number}" if number is not None else ""


def subtask_number(task_id: str) -> int | None:
    """The number a sub-task's default id ends in (``…/sub-1``: 1); ``None`` otherwise."""
    found = _SUBTASK_ID.search(task_id)
    return int(found.group(1)) if found else None


def labelled(label: str, message: ChannelMessage) -> ChannelMessage:
    """``message`` saying which sub-task wrote it (``sub-task 1: …``), in its text and first
    section; unchanged without a label, or when its first block is named (a progress message,
    which says whose it is itself)."""
    blocks: list[Any] = list(message.blocks)
    first = dict(blocks[0]) if blocks else {}
    if not label or first.get("block_id"):
        return message
    inner = first.get("text")
    if first.get("type") == "section" and isinstance(inner, dict) and "text" in inner:
        blocks[0] = {**first, "text": {**inner, "text": f"*{label}:* {inner['text']}"}}
    return message.model_copy(update={"text": f"{label}: {message.text}", "blocks": blocks})


def starting_subtask(title: str) -> str:
    """The public reply to ``/sub-task``: which sub-task starts (:func:`spawned` adds its name)."""
    return f"starting sub-task “{neutral(title)}”"


def spawned(task_id: str) -> str:
    """What ``/sub-task``'s reply adds once the sub-task runs: how the thread will name it."""
    label = subtask_label(task_id)
    return f" as {label}" if label else ""


def subtask_ended(title: str, status: TaskStatus, *, by_itself: bool = False) -> str:
    """The last line a sub-task posts in its parent's thread, after its label (no "mention
    me": it is not the channel's task). ``by_itself``: its request was over (answered,
    stopped or failed), not cut off by its parent's end."""
    who = f"“{neutral(title)}”" if title else "this sub-task"
    if status == TaskStatus.SUCCEEDED:
        return f"{who} is done."
    if status == TaskStatus.CANCELLED and by_itself:
        return f"{who} has ended without an answer: its turn was stopped."
    if status == TaskStatus.CANCELLED:
        return f"{who} was cancelled: {TASK_ENDED} first."
    return f"{who} ended ({status}); the task it belongs to goes on."


def subtask_state(status: TaskStatus) -> str:
    """A sub-task's state in a word, as the status view and the replies about it say it: one
    that succeeded is ``done`` (it answered its request)."""
    return "done" if status == TaskStatus.SUCCEEDED else str(status)


def no_such_subtask(number: int, labels: tuple[str, ...]) -> str:
    """The reply to a command naming a sub-task the task does not have: the ones it has."""
    if not labels:
        return f"this task has no sub-task {number}: it has no sub-tasks"
    return f"this task has no sub-task {number}; its sub-tasks: {', '.join(labels)}"


def nothing_to_stop(task_id: str) -> str:
    """The reply to a stop of sub-task ``task_id`` with no turn running (named as the thread
    names it); the task's own is :func:`~harness.replies.tasks.not_stopped`."""
    return f"{subtask_label(task_id) or 'that sub-task'} has no turn running; nothing to stop"


def subtask_over(label: str, status: TaskStatus) -> str:
    """The reply to a stop of a sub-task that has ended."""
    return f"{label} has ended ({subtask_state(status)}); nothing to stop"


def stopping_subtask(user: str, label: str) -> str:
    """The public reply to ``/task stop sub-N``: who stops which sub-task's turn."""
    return (
        f"<@{user}> is stopping the turn of {label}; what it did and did not do follows in "
        "the thread"
    )


def cancelled_subtasks(running: tuple[str, ...], waiting: tuple[str, ...] = ()) -> str:
    """What a parent's end, or its roll-over, cut off, each as it was: ``cancelled 1 running
    sub-task (sub-task 1)``, ``cancelled 1 sub-task waiting for an answer (sub-task 2)``, or
    both, joined by "and" (issue 26: one waiting on a person is not said to run)."""
    said = []
    if running:
        said.append(f"{len(running)} running {_subtasks(running)} ({', '.join(running)})")
    if waiting:
        said.append(
            f"{len(waiting)} {_subtasks(waiting)} waiting for an answer ({', '.join(waiting)})"
        )
    return "cancelled " + " and ".join(said)


def _subtasks(labels: tuple[str, ...]) -> str:
    return "sub-task" if len(labels) == 1 else "sub-tasks"


def not_a_subtask(text: str) -> str:
    """The usage problem of a command whose argument names no sub-task."""
    return f"`{neutral(text)}` names no sub-task: say which, as `sub-1`"
