"""Reply texts the bot writes itself: errors talking to the task, "working on it", task starts.

Replies a command produces (``refused: …``, ``/<name> failed: …``) come from the
task (see ``commands.outcome``); this module only covers what happens before or
around that, so every failure a user can meet reads the same.
"""

from __future__ import annotations

from typing import Final

from harness.channels import neutral
from harness.temporal.errors import (
    TaskBusy,
    TaskError,
    TaskNotFound,
    TaskRejected,
    TaskTimedOut,
)

UNREACHABLE: Final = (
    "the harness is not reachable right now (its Temporal server did not answer); "
    "nothing was changed — please try again in a minute"
)


def working(command: str, args: str) -> str:
    """The ack text when the task did not answer within the ack budget."""
    shown = f"/{command}" + (f" {neutral(args)}" if args else "")  # echoed: pings nobody
    return f"working on `{shown}` …"


def refused(reason: str) -> str:
    """What only the sender reads when the task refused their input on purpose (``TaskRefused``).

    The same words as a refused command (``commands.outcome``): the reason is
    written for the sender and says who can let them in.
    """
    return f"refused: {reason}"


def no_task(command: str) -> str:
    """The reply in a channel without a task."""
    return (
        f"there is no task in this channel yet, so `/{command}` has nothing to act on; "
        "mention me with what you need to start one"
    )


def for_error(command: str, error: BaseException) -> str:
    """What the sender reads when sending ``/<command>`` to the task failed."""
    if isinstance(error, TaskRejected):
        return f"the task did not take `/{command}`: {error.reason}"
    if isinstance(error, TaskNotFound):
        return no_task(command)
    if isinstance(error, TaskBusy):
        return busy(command, error.in_flight)
    if isinstance(error, TaskTimedOut):
        return no_answer(command)
    if isinstance(error, TaskError | TimeoutError | OSError):
        return UNREACHABLE
    return f"/{command} failed: {type(error).__name__}"


def busy(command: str, in_flight: int | None) -> str:
    """The reply when the task stayed at its limit of concurrent requests (not an outage)."""
    how = f"with {in_flight} other requests" if in_flight else "right now"
    return (
        f"this task is busy {how}, so `/{command}` was not applied; "
        "nothing was changed — try again in a moment"
    )


def no_answer(command: str) -> str:
    """The reply when the task did not answer in time: it may still apply the command.

    Not :data:`UNREACHABLE` ("nothing was changed"): the update stays with the task,
    so sending it again blindly could apply it twice.
    """
    return (
        f"the task did not answer `/{command}` in time; it may still be applied — "
        "check `/status` before trying again"
    )


def timed_out(command: str, seconds: float) -> str:
    """The follow-up when the task gave no answer before the reply deadline."""
    return (
        f"`/{command}` got no answer from the task within {seconds:.0f} s; it was not "
        "confirmed — check `/status` before trying again"
    )


def task_joined(task_id: str) -> str:
    """Posted in the thread of a mention that reached the channel's running task."""
    return (
        f"this channel's task `{task_id}` is already running; your message went to it, "
        "and replies in this thread will too"
    )


def task_started(task_id: str) -> str:
    """Posted in the thread of the mention that started a task."""
    return (
        f"started task `{task_id}`; reply in this thread to talk to it. "
        "`/status`, `/model`, `/effort`, `/help` work in this channel"
    )
