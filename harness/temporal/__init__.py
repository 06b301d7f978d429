"""Durability: the task workflow, the hook-wrapped activities and the worker that runs them.

A folder per role: :mod:`~harness.temporal.workflow` (sandboxed workflow code),
:mod:`~harness.temporal.activity` (the hooked activities), :mod:`~harness.temporal.client`
(the bot's one API) and :mod:`~harness.temporal.worker` (the process); what they share sits
beside this module (models, errors, codec, keys, connection).

Only names live here, and this module imports nothing of harness: the workflow sandbox
imports it as the package of every workflow module, outside ``imports_passed_through``,
so an import of ``harness.hooks`` here would give the sandbox its own copies of every
context class. Activity names are the catalogue's (``harness.hooks.catalogue.ACTIVITIES``,
imported by workflow code inside ``imports_passed_through``).
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

TASK_WORKFLOW: Final = "task-v1"
REQUEST_WORKFLOW: Final = "request-v1"

ABORT_ERROR_TYPE: Final = "HookAbort"
"""``ApplicationError.type`` an executor's abort had as an activity failure before issue 25
(today the activity returns it as a value); still read from older histories and workers."""

WORKER_SHUTDOWN_ERROR_TYPE: Final = "WorkerShutdown"
"""``ApplicationError.type`` of an attempt its worker stopped (shutdown past the grace period):
run again elsewhere, like one whose worker died, never counted as a failure of the operation."""

ALIVE_PATCH: Final = "alive-v1"
"""``workflow.patched`` id of issue 14's turns (progress message, stop, mid-turn modes, the
ending said in the thread): a history begun before them replays without them."""

SUBTASKS_PATCH: Final = "subtasks-v1"
"""``workflow.patched`` id of issue 26's first-class sub-tasks: a sub-task reports what it uses
and asks to its parent as it goes, and a cancelled turn posts its final state; a history begun
before them replays without."""

SUBTASK_ENDS_PATCH: Final = "subtask-ends-v1"
"""``workflow.patched`` id of a sub-task that ends with its request (issue 26): once the turn
answering its prompt is over and nothing is open it ends (succeeded when answered, cancelled
when stopped, failed when the turn failed), and it reports its turn to its parent as it goes
(``/task status sub-N``); a history begun before runs on until its parent ends."""

SUBTASK_STOP_PATCH: Final = "subtask-stop-v1"
"""``workflow.patched`` id of a parent stopping one sub-task's turn on ``/task stop sub-N``
(issue 26): the :data:`STOP_TURN_SIGNAL` it sends is a command an older history lacks."""

SUBTASK_ONE_END_PATCH: Final = "subtask-one-end-v1"
"""``workflow.patched`` id of a sub-task cut off mid-turn by its parent's end posting one end
line (its turn's summary, saying so) instead of that and another (issue 26)."""

SUBTASK_THREAD_PATCH: Final = "subtask-in-turn-thread-v1"
"""``workflow.patched`` id of a sub-task posting in the thread of its parent's latest turn (the
one running when ``/sub-task`` came, or else the last one), where a reply answers its question
without buttons (issue 26); a history from before started it in its parent's first thread."""

SUBTASK_STOP_END_PATCH: Final = "subtask-stop-one-end-v1"
"""``workflow.patched`` id of a sub-task whose turn was stopped (``/task stop sub-N``, its Stop
button, its parent's budget) posting one end line, its stop's summary saying it ended, instead
of that and another (issue 26)."""

SUBTASK_SIGNAL: Final = "subtask"
"""Signal a sub-task sends its parent: a :class:`~harness.temporal.models.SubtaskReport`."""

ANSWER_SIGNAL: Final = "answer"
"""Signal a parent sends the sub-task whose question a click or reply in the thread answers."""

STOP_SIGNAL: Final = "stop"
"""Signal a parent sends a sub-task to stop its turn (the parent's budget is used up)."""

STOP_TURN_SIGNAL: Final = "stop-turn"
"""Signal a parent sends a sub-task to stop its turn in a person's name (``/task stop sub-N``):
a :class:`~harness.temporal.models.TurnStop`."""

REFUSED_ERROR_TYPE: Final = "Refused"
"""``ApplicationError.type`` of an update the task refused on purpose (``TaskRefused``)."""

GAVE_UP_ERROR_TYPE: Final = "TaskGaveUp"
"""``ApplicationError.type`` the workflow raises when ``activity.failed`` decides to stop."""

USER_MESSAGE: Final = "user_message"
"""Key of a failure's details holding the error's human sentence (``HarnessError.user_message``)."""

SERVICE: Final = "service"
"""Key of a transport failure's details naming the hook service: its configured name, never
its address (the reply names it, :mod:`harness.replies`)."""


def workflow_url(ui_url: str, namespace: str, workflow_id: str) -> str:
    """The Temporal Web UI's page of a workflow; a task's workflow id is its task id.

    ``task/T1/C1`` holds slashes, so the id (and the namespace) are percent-encoded
    whole, as the UI's own links are.
    """
    base = ui_url.rstrip("/")
    return f"{base}/namespaces/{quote(namespace, safe='')}/workflows/{quote(workflow_id, safe='')}"
