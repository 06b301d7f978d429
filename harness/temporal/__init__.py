"""Durability: the task workflow, the hook-wrapped activities and the worker that runs them.

Only names live here, so that the bot, the settings and the workflow sandbox can
import them without pulling in activity code. Activity names are explicit strings
and take a version suffix when their payload changes (STYLE.md rule 10).
"""

from __future__ import annotations

from typing import Final
from urllib.parse import quote

TASK_QUEUE: Final = "tiny-harness"
"""The task queue a worker polls unless ``HARNESS_TASK_QUEUE`` says otherwise."""

TASK_WORKFLOW: Final = "task-v1"
REQUEST_WORKFLOW: Final = "request-v1"

REQUEST_RECEIVED: Final = "request-received-v1"

TASK_CREATED: Final = "task-created-v1"
TASK_STATE_CHANGED: Final = "task-state-changed-v1"
TASK_COMPLETE: Final = "task-complete-v1"
PERSISTENCE_READ: Final = "persistence-read-v1"
PERSISTENCE_WRITE: Final = "persistence-write-v1"
SUBTASK_SPAWNED: Final = "subtask-spawned-v1"
COMMAND_INVOKED: Final = "command-invoked-v1"
DISPATCH_HOOKS: Final = "dispatch-hooks-v1"

LOOP_OPERATIONS: Final = (
    "channel.received", "channel.sent", "context.created", "llm.invoked",
    "tool_calls.extracted", "tool.invoked", "system_one.invoked", "plan.created",
    "step.started", "step.finished", "help.requested", "help.decided",
    "compaction.trigger", "compaction.keep", "compaction.summarise",
    "skill.loaded", "skill.unloaded", "agent.invoked",
)  # fmt: skip
"""Operations of the agent loop and the channel, each with its own activity (issue 5)."""

LOOP_ACTIVITIES: Final[dict[str, str]] = {
    op: op.replace(".", "-").replace("_", "-") + "-v1" for op in LOOP_OPERATIONS
}
"""Operation -> activity name, e.g. ``tool.invoked`` -> ``tool-invoked-v1``."""

ACTIVITY_OPERATIONS: Final[dict[str, str]] = {
    REQUEST_RECEIVED: "request.received",
    TASK_CREATED: "task.created",
    TASK_STATE_CHANGED: "task.state_changed",
    TASK_COMPLETE: "task.complete",
    PERSISTENCE_READ: "persistence.read",
    PERSISTENCE_WRITE: "persistence.write",
    SUBTASK_SPAWNED: "subtask.spawned",
    COMMAND_INVOKED: "command.invoked",
    **{name: op for op, name in LOOP_ACTIVITIES.items()},
}
"""The operation each activity performs; ``dispatch_hooks`` runs the one its input names."""

ABORT_ERROR_TYPE: Final = "HookAbort"
"""``ApplicationError.type`` of an operation cancelled by an executor (non-retryable)."""

WORKER_SHUTDOWN_ERROR_TYPE: Final = "WorkerShutdown"
"""``ApplicationError.type`` of an attempt its worker stopped (shutdown past the grace period):
run again elsewhere, like one whose worker died, never counted as a failure of the operation."""

REFUSED_ERROR_TYPE: Final = "Refused"
"""``ApplicationError.type`` of an update the task refused on purpose (``TaskRefused``)."""

GAVE_UP_ERROR_TYPE: Final = "TaskGaveUp"
"""``ApplicationError.type`` the workflow raises when ``activity.failed`` decides to stop."""

USER_MESSAGE: Final = "user_message"
"""Key of a failure's details holding the error's human sentence (``HarnessError.user_message``)."""

MODEL_OPERATIONS: Final = frozenset({"llm.invoked", "system_one.invoked", "compaction.summarise"})
"""Operations that call a model: a retry of one is said in the thread (issue 11)."""


def workflow_url(ui_url: str, namespace: str, workflow_id: str) -> str:
    """The Temporal Web UI's page of a workflow; a task's workflow id is its task id.

    ``task/T1/C1`` holds slashes, so the id (and the namespace) are percent-encoded
    whole, as the UI's own links are.
    """
    base = ui_url.rstrip("/")
    return f"{base}/namespaces/{quote(namespace, safe='')}/workflows/{quote(workflow_id, safe='')}"
