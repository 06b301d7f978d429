"""Local steps: which operations a run starts as Temporal local activities, and how.

Workflow code (sandboxed, deterministic). A row of the catalogue that says ``local`` is a
short step, run by the worker that runs the workflow, inside its workflow task, with no
task-queue round trip; its result is a marker in history (docs/architecture.md, "Where
each operation runs"). Which rows a run takes as local is part of what it records, so it is
decided by ``workflow.patched`` ids, once per run (:mod:`.patches`), and a history from
before either id replays its steps as the activities it recorded.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, FailureError

with workflow.unsafe.imports_passed_through():
    from harness.hooks import LOCAL_BY_DEFAULT, HookContext, entry_of

LOCAL_STEPS = "local-steps-v1"
"""``workflow.patched`` id: since issue 27 a row that says ``local`` (a short step) runs as a
Temporal local activity; before, every operation was an activity on the task queue."""

SHORT_STEPS_LOCAL = "short-steps-local-v1"
"""``workflow.patched`` id: since issue 27 the built-in rows that say ``local`` (the short
steps: the database, one Slack call, in-process work) run as local activities by default;
before, only a row a plugin made local did, and a run from then replays its built-in steps
as the activities it recorded (:func:`runs_locally`)."""

RECORD_PAUSE: Final = timedelta(milliseconds=1)
"""The timer that ends a workflow task so that a local read before it is recorded
(:func:`recorded`)."""


def runs_locally(operation: str) -> bool:
    """Whether this run starts ``operation`` as a local activity: its row says ``local``
    (since :data:`LOCAL_STEPS`), and a built-in row that says so by default only in a run
    begun since :data:`SHORT_STEPS_LOCAL`, whose steps are recorded as markers."""
    row = entry_of(operation)
    if not (row.local and workflow.patched(LOCAL_STEPS)):
        return False
    return operation not in LOCAL_BY_DEFAULT or workflow.patched(SHORT_STEPS_LOCAL)


async def recorded(operation: type[HookContext]) -> None:
    """Let the last run of ``operation`` be recorded in history before anything goes on.

    A read that a later step of the same run writes to must be recorded first: a local
    read is recorded only when its workflow task completes, and a worker that dies before
    then leaves the task to be run again, its read seeing the writes of the steps after it
    (issue 27: the transcript read at a task's start saw the message the killed worker had
    appended, and took its delivery for a repeat). A 1 ms timer (:data:`RECORD_PAUSE`)
    ends the workflow task; a step on the task queue is recorded already.
    """
    if runs_locally(operation.operation):
        await workflow.sleep(RECORD_PAUSE)


async def run_local(
    activity: str,
    arg: object,
    answer: Any,  # noqa: ANN401  # a union of types
    *,
    timeout: timedelta,
    retry_policy: RetryPolicy,
    summary: str | None,
) -> Any:  # noqa: ANN401  # what ``answer`` names
    """One attempt as a local activity; its failure raised as an activity's would be.

    A local activity's failure reaches workflow code as its cause alone (the
    ``ApplicationError``, ``TimeoutError``): wrapped here in the ``ActivityError`` a
    regular activity raises, so it is read in one place (:func:`.failures.describe`).
    """
    try:
        result = await workflow.execute_local_activity(
            activity,
            arg,
            result_type=answer,
            start_to_close_timeout=timeout,
            retry_policy=retry_policy,
            summary=summary,
        )
    except ActivityError:
        raise
    except FailureError as cause:
        error = ActivityError(
            f"local activity {activity} failed",
            scheduled_event_id=0,
            started_event_id=0,
            identity="",
            activity_type=activity,
            activity_id="",
            retry_state=None,
        )
        raise error from cause
    return result
