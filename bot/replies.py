"""Which notice the bot gives around a command or a mention: errors talking to the task,
"working on it", task starts.

Replies a command produces (``refused: …``, ``/model failed: …``) come from the task; this
module chooses what to say before or around that (the task is unreachable, busy, has no
worker) and spells each command as the registry does. Every sentence is worded by the one
reply rule (:mod:`harness.replies`, its notices), so every failure a user can
meet reads the same and none names an exception class.
"""

from __future__ import annotations

from commands import COMMANDS, invocation_of
from commands.help import command_lines
from harness import replies
from harness.domain import Role
from harness.replies import SOMETHING_WRONG, TASK_FINISHED, failed, unknown
from harness.replies import UNREACHABLE as UNREACHABLE
from harness.replies import refused as refused  # the sender's refusal, as a command's
from harness.replies.umbrella import RESERVED, UMBRELLA, command_name
from harness.temporal.client.routing import FINISHED
from harness.temporal.errors import (
    TaskBusy,
    TaskError,
    TaskNotFound,
    TaskNoWorker,
    TaskRejected,
    TaskTimedOut,
)


def typed(command: str) -> str:
    """How a user types command ``command`` (``/task status``; unknown names as ``/<name>``)."""
    return invocation_of(command) or f"/{command}"


def working(command: str, args: str) -> str:
    """The ack text when the task did not answer within the ack budget."""
    return replies.working(typed(command), args)


def no_task(command: str) -> str:
    """The reply in a channel without a task."""
    return replies.no_task(typed(command))


def ended(error: BaseException) -> bool:
    """Whether ``error`` says the channel's task has ended (or is ending): not a fault, and
    the next mention starts a new task."""
    return isinstance(error, TaskRejected) and error.reason in (FINISHED, TASK_FINISHED)


def task_ended(command: str) -> str:
    """The reply to a command in a channel whose task has ended."""
    return replies.channel_task_ended(typed(command))


def for_error(command: str, error: BaseException) -> str:
    """What the sender reads when sending ``/<command>`` to the task failed."""
    if ended(error):
        return task_ended(command)
    if isinstance(error, TaskRejected):
        return replies.not_taken(typed(command), error.reason)
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
        return replies.CLICK_TASK_ENDED
    if isinstance(error, TaskRejected):
        return error.reason  # the task's own sentence for the clicker (how it closed), no ids
    if isinstance(error, TaskTimedOut):
        return replies.CLICK_UNCONFIRMED
    return UNREACHABLE


def busy(command: str, in_flight: int | None) -> str:
    """The reply when the task stayed at its limit of concurrent requests (not an outage)."""
    return replies.busy(typed(command), in_flight)


def no_worker(error: TaskNoWorker) -> str:
    """The reply when no worker took the request: what to check, and that nothing was sent.

    Temporal itself answered, so this is not :data:`UNREACHABLE`; the operator's fix
    is a worker on the right task queue.
    """
    return replies.no_worker(error.seconds, error.task_queue, error.pollers)


def no_answer(command: str) -> str:
    """The reply when the task did not answer in time: it may still apply the command.

    Not :data:`UNREACHABLE` ("nothing was changed"): the update stays with the task,
    so sending it again blindly could apply it twice.
    """
    return replies.no_answer(typed(command), typed("status"))


def timed_out(command: str, seconds: float) -> str:
    """The follow-up when the task gave no answer before the reply deadline."""
    return replies.timed_out(typed(command), seconds, typed("status"))


def task_joined() -> str:
    """Posted in the thread of a mention that reached the channel's running task (no id:
    issue 26)."""
    return replies.TASK_JOINED


def task_started() -> str:
    """Posted in the thread of the mention that started a task (no id: the status view's
    link names the workflow; issue 26)."""
    return replies.task_started(_listed("status", "model", "effort", "help"))


def not_a_command(command: str, args: str) -> str:
    """The ack of a slash command that runs nothing here: what it is called now, or the help.

    ``/status`` and ``/invite`` are Slack's own, so their old names point at ``/task …``;
    ``/task teleport`` names the help.
    """
    name = command_name(command)
    spec = COMMANDS.get(name)
    if spec is not None and not spec.top_level:
        return replies.renamed(name, spec.invocation, reserved=name in RESERVED)
    words = args.split()[:1] if name == UMBRELLA else []
    shown = " ".join([f"/{name}", *words])
    return unknown(shown)


def direct_message() -> str:
    """The answer to a direct message: tasks live in channels; how to start one there."""
    return replies.direct_message(command_lines(Role.OWNER, COMMANDS.values()), typed("help"))


def _listed(*names: str) -> str:
    return ", ".join(f"`{typed(name)}`" for name in names)
