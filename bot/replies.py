"""Reply texts the bot writes itself: errors talking to the task, "working on it", task starts.

Replies a command produces (``refused: …``, ``/model failed: …``) come from the
task, by the one reply rule (:mod:`harness.channels.replies`); this module only covers
what happens before or around that (the task is unreachable, busy, has no worker), built
on that module's words, so every failure a user can meet reads the same and none names an
exception class.
"""

from __future__ import annotations

from typing import Final

from commands import COMMANDS, invocation_of
from commands.help import command_lines
from harness.channels import neutral
from harness.channels.replies import SOMETHING_WRONG, TASK_FINISHED, failed, unknown
from harness.channels.replies import refused as refused  # the sender's refusal, as a command's
from harness.channels.umbrella import RESERVED, UMBRELLA, command_name
from harness.domain import Role
from harness.temporal.errors import (
    TaskBusy,
    TaskError,
    TaskNotFound,
    TaskNoWorker,
    TaskRejected,
    TaskTimedOut,
)
from harness.temporal.routing import FINISHED

UNREACHABLE: Final = (
    "the harness is not reachable right now (its Temporal server did not answer); "
    "nothing was changed — please try again in a minute"
)


def typed(command: str) -> str:
    """How a user types command ``command`` (``/task status``; unknown names as ``/<name>``)."""
    return invocation_of(command) or f"/{command}"


def working(command: str, args: str) -> str:
    """The ack text when the task did not answer within the ack budget."""
    shown = typed(command) + (f" {neutral(args)}" if args else "")  # echoed: pings nobody
    return f"working on `{shown}` …"


def no_task(command: str) -> str:
    """The reply in a channel without a task."""
    return (
        f"there is no task in this channel yet, so `{typed(command)}` has nothing to act on; "
        "mention me with what you need to start one"
    )


def ended(error: BaseException) -> bool:
    """Whether ``error`` says the channel's task has ended (or is ending): not a fault, and
    the next mention starts a new task."""
    return isinstance(error, TaskRejected) and error.reason in (FINISHED, TASK_FINISHED)


def task_ended(command: str) -> str:
    """The reply to a command in a channel whose task has ended."""
    return (
        f"this channel's task has ended, so `{typed(command)}` has nothing to act on; "
        "mention me with what you need to start a new one"
    )


def for_error(command: str, error: BaseException) -> str:
    """What the sender reads when sending ``/<command>`` to the task failed."""
    if ended(error):
        return task_ended(command)
    if isinstance(error, TaskRejected):
        return f"the task did not take `{typed(command)}`: {error.reason}"
    if isinstance(error, TaskNotFound):
        return no_task(command)
    if isinstance(error, TaskBusy):
        return busy(command, error.in_flight)
    if isinstance(error, TaskTimedOut):
        return no_answer(command)
    if isinstance(error, TaskNoWorker):
        return no_worker(error)
    if isinstance(error, TaskError | TimeoutError | OSError):
        return UNREACHABLE
    return failed(typed(command), SOMETHING_WRONG)  # the error's class stays in the log


def for_click(error: TaskError) -> str:
    """What the clicker reads when the task did not take a click on a question's button."""
    if ended(error) or isinstance(error, TaskNotFound):
        return "this question's task has ended, so the answer was not taken"
    if isinstance(error, TaskRejected):
        return error.reason  # the task's own sentence for the clicker (how it closed), no ids
    if isinstance(error, TaskTimedOut):
        return "the task did not confirm your answer in time; it may still count"
    return UNREACHABLE


def busy(command: str, in_flight: int | None) -> str:
    """The reply when the task stayed at its limit of concurrent requests (not an outage)."""
    how = f"with {in_flight} other requests" if in_flight else "right now"
    return (
        f"this task is busy {how}, so `{typed(command)}` was not applied; "
        "nothing was changed — try again in a moment"
    )


def no_worker(error: TaskNoWorker) -> str:
    """The reply when no worker took the request: what to check, and that nothing was sent.

    Temporal itself answered, so this is not :data:`UNREACHABLE`; the operator's fix
    is a worker on the right task queue.
    """
    seen = (
        "no worker is polling it" if error.pollers == 0 else "the workers seen on it did not answer"
    )
    return (
        f"no worker answered within {error.seconds:g} s, so nothing was sent to the task: "
        f"is the harness worker running on task queue `{error.task_queue}`? ({seen}) "
        "Try again once it is"
    )


def no_answer(command: str) -> str:
    """The reply when the task did not answer in time: it may still apply the command.

    Not :data:`UNREACHABLE` ("nothing was changed"): the update stays with the task,
    so sending it again blindly could apply it twice.
    """
    return (
        f"the task did not answer `{typed(command)}` in time; it may still be applied — "
        f"check `{typed('status')}` before trying again"
    )


def timed_out(command: str, seconds: float) -> str:
    """The follow-up when the task gave no answer before the reply deadline."""
    return (
        f"`{typed(command)}` got no answer from the task within {seconds:.0f} s; it was not "
        f"confirmed — check `{typed('status')}` before trying again"
    )


def task_joined() -> str:
    """Posted in the thread of a mention that reached the channel's running task (no id:
    issue 26)."""
    return (
        "this channel's task is already running; your message went to it, "
        "and replies in this thread will too"
    )


def task_started() -> str:
    """Posted in the thread of the mention that started a task (no id: the status view's
    link names the workflow; issue 26)."""
    return (
        "started a task for this channel; reply in this thread to talk to it. "
        f"{_listed('status', 'model', 'effort', 'help')} work in this channel"
    )


def not_a_command(command: str, args: str) -> str:
    """The ack of a slash command that runs nothing here: what it is called now, or the help.

    ``/status`` and ``/invite`` are Slack's own, so their old names point at ``/task …``;
    ``/task teleport`` names the help.
    """
    name = command_name(command)
    spec = COMMANDS.get(name)
    if spec is not None and not spec.top_level:
        why = f" (Slack keeps `/{name}` for itself)" if name in RESERVED else ""
        return f"`/{name}` is `{spec.invocation}` here{why}"
    words = args.split()[:1] if name == UMBRELLA else []
    shown = " ".join([f"/{name}", *words])
    return unknown(shown)


def direct_message() -> str:
    """The answer to a direct message: tasks live in channels; how to start one there."""
    return "\n".join(
        [
            "I run tasks in channels, not in direct messages: add me to a channel and mention "
            "me there with what you need. That starts a task you own, and in that channel you "
            "can use:",
            *command_lines(Role.OWNER, COMMANDS.values()),
            f"`{typed('help')}` works anywhere, here too.",
        ]
    )


def _listed(*names: str) -> str:
    return ", ".join(f"`{typed(name)}`" for name in names)
