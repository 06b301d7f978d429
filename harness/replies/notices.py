"""The bot's own notices in words: what it says around a command or a mention when the task
cannot answer (unreachable, busy, no worker, no task), and when a task starts or is joined.

The bot (``bot/replies.py``) chooses which notice fits which error and spells the command
as its registry does (``typed``: ``/task status``); the sentences are here, and none names
an exception class, a workflow id or a socket error.
"""

from __future__ import annotations

from typing import Final

from harness.replies.neutral import neutral

__all__ = [
    "CLICK_TASK_ENDED",
    "CLICK_UNCONFIRMED",
    "TASK_JOINED",
    "UNREACHABLE",
    "busy",
    "channel_task_ended",
    "no_answer",
    "no_task",
    "no_worker",
    "not_taken",
    "renamed",
    "task_started",
    "timed_out",
    "working",
]


UNREACHABLE: Final = (
    "the harness is not reachable right now (its Temporal server did not answer); "
    "nothing was changed — please try again in a minute"
)
"""Temporal did not answer: nothing reached the task."""

CLICK_TASK_ENDED: Final = "this question's task has ended, so the answer was not taken"
"""A click on a question whose task has ended."""

CLICK_UNCONFIRMED: Final = "the task did not confirm your answer in time; it may still count"
"""A click the task did not confirm before the bot's deadline."""

TASK_JOINED: Final = (
    "this channel's task is already running; your message went to it, "
    "and replies in this thread will too"
)
"""Posted in the thread of a mention that reached the channel's running task (no id)."""


def working(typed: str, args: str) -> str:
    """The ack text when the task did not answer within the ack budget."""
    shown = typed + (f" {neutral(args)}" if args else "")  # echoed: pings nobody
    return f"working on `{shown}` …"


def no_task(typed: str) -> str:
    """The reply to a command in a channel without a task."""
    return (
        f"there is no task in this channel yet, so `{typed}` has nothing to act on; "
        "mention me with what you need to start one"
    )


def channel_task_ended(typed: str) -> str:
    """The reply to a command in a channel whose task has ended."""
    return (
        f"this channel's task has ended, so `{typed}` has nothing to act on; "
        "mention me with what you need to start a new one"
    )


def not_taken(typed: str, reason: str) -> str:
    """The task refused the command before running it (``reason``: its own sentence, no id)."""
    return f"the task did not take `{typed}`: {reason}"


def busy(typed: str, in_flight: int | None) -> str:
    """The reply when the task stayed at its limit of concurrent requests (not an outage)."""
    how = f"with {in_flight} other requests" if in_flight else "right now"
    return (
        f"this task is busy {how}, so `{typed}` was not applied; "
        "nothing was changed — try again in a moment"
    )


def no_worker(seconds: float, task_queue: str, pollers: int) -> str:
    """The reply when no worker took the request within ``seconds``: what to check, and that
    nothing was sent (``pollers``: how many workers Temporal saw on ``task_queue``)."""
    seen = "no worker is polling it" if pollers == 0 else "the workers seen on it did not answer"
    return (
        f"no worker answered within {seconds:g} s, so nothing was sent to the task: "
        f"is the harness worker running on task queue `{task_queue}`? ({seen}) "
        "Try again once it is"
    )


def no_answer(typed: str, status: str) -> str:
    """The task did not answer ``typed`` in time; it may still apply it (``status``: the
    command that shows whether it did)."""
    return (
        f"the task did not answer `{typed}` in time; it may still be applied — "
        f"check `{status}` before trying again"
    )


def timed_out(typed: str, seconds: float, status: str) -> str:
    """The follow-up when the task gave no answer before the reply deadline."""
    return (
        f"`{typed}` got no answer from the task within {seconds:.0f} s; it was not "
        f"confirmed — check `{status}` before trying again"
    )


def task_started(commands: str) -> str:
    """Posted in the thread of the mention that started a task (no id); ``commands``: the
    ones that work in the channel, listed."""
    return (
        "started a task for this channel; reply in this thread to talk to it. "
        f"{commands} work in this channel"
    )


def renamed(name: str, typed: str, *, reserved: bool) -> str:
    """A slash command that is ``typed`` here (``/status`` is ``/task status``); ``reserved``:
    Slack keeps ``/name`` for itself."""
    why = f" (Slack keeps `/{name}` for itself)" if reserved else ""
    return f"`/{name}` is `{typed}` here{why}"
