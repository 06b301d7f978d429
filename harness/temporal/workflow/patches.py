"""Every ``workflow.patched`` id, settled before a run's first local step.

Workflow code (sandboxed, deterministic). ``workflow.patched`` answers from the markers of
the workflow task being replayed, so a run must call it at the same point of the same
workflow task on replay as when it ran. Local activities move those points: a query that
reaches the worker while a local step runs makes it complete the workflow task early, and
the code after the step then ran in the next task, while on replay the step's marker
resolves it at once, in the task before (issue 27: ``Change id transcript-log-v1 does not
match expected id run-limits-v1``). So a run with local steps (:data:`LOCAL_STEPS`) calls
every id here first, at its start, before any step: each is decided once, in the first
workflow task, and read back from the memo wherever the code asks. A run from before local
steps replays as it was recorded, each id where it was first called. A new id goes here too
(``tests/unit/temporal/workflow/test_patches.py`` finds any that does not).
"""

from __future__ import annotations

from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.temporal import (
        ALIVE_PATCH,
        SUBTASK_ENDS_PATCH,
        SUBTASK_ONE_END_PATCH,
        SUBTASK_STOP_END_PATCH,
        SUBTASK_STOP_PATCH,
        SUBTASK_THREAD_PATCH,
        SUBTASKS_PATCH,
    )
    from harness.temporal.workflow.agent_runner import PLAN_RETRIES_SAID
    from harness.temporal.workflow.local_steps import LOCAL_STEPS, SHORT_STEPS_LOCAL
    from harness.temporal.workflow.people import QUESTIONS_CLOSED_PATCH, TURN_THREAD_PATCH
    from harness.temporal.workflow.retries import (
        ABORTS_FINAL,
        HOOK_OUTAGE_NOTICES,
        LEAN_RESULTS,
        MESSAGES_BY_REF,
        OUTCOMES,
        RETRY_ACTIVITIES,
        RUN_AGAIN_ON_LOST_WORKER,
        SAY_RETRIES,
        STRAND_KEYS,
    )
    from harness.temporal.workflow.run_limits import RUN_LIMITS_PATCH
    from harness.temporal.workflow.transcript import RECORDED_LOAD_PATCH, TRANSCRIPT_LOG_PATCH

PATCHES: Final = (
    ALIVE_PATCH,
    SUBTASKS_PATCH,
    SUBTASK_ENDS_PATCH,
    SUBTASK_STOP_PATCH,
    QUESTIONS_CLOSED_PATCH,
    ABORTS_FINAL,
    OUTCOMES,
    RETRY_ACTIVITIES,
    RUN_AGAIN_ON_LOST_WORKER,
    SAY_RETRIES,
    HOOK_OUTAGE_NOTICES,
    RUN_LIMITS_PATCH,
    TRANSCRIPT_LOG_PATCH,
    LEAN_RESULTS,
    TURN_THREAD_PATCH,
    SUBTASK_ONE_END_PATCH,
    SUBTASK_THREAD_PATCH,
    SUBTASK_STOP_END_PATCH,
    STRAND_KEYS,
    RECORDED_LOAD_PATCH,
    SHORT_STEPS_LOCAL,
    MESSAGES_BY_REF,
    PLAN_RETRIES_SAID,
)
"""Every id but :data:`LOCAL_STEPS`, in the order a run with local steps records them."""


def settle() -> bool:
    """At a run's start: whether it has local steps; if so, every id is decided now.

    Call it first thing in a workflow's run (or ``__init__``), before anything that may
    run an operation.
    """
    if not workflow.patched(LOCAL_STEPS):
        return False
    for patch in PATCHES:
        workflow.patched(patch)
    return True
