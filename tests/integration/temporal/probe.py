"""A workflow that runs one activity by name and reports what came back, for wrapper tests.

Kept apart from the test modules because the sandbox re-imports a workflow's module.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError


@workflow.defn(name="probe")
class Probe:
    @workflow.run
    async def run(self, activity: str, payload: dict[str, Any], cancel_after: float) -> dict:
        handle = workflow.start_activity(
            activity,
            payload,
            result_type=dict,
            start_to_close_timeout=timedelta(seconds=10),
            heartbeat_timeout=timedelta(seconds=2),
            retry_policy=RetryPolicy(maximum_attempts=1),
        )
        if cancel_after:
            await workflow.sleep(cancel_after)
            handle.cancel()
        try:
            return {"ok": await handle}
        except ActivityError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError):
                return {
                    "error": {
                        "type": cause.type,
                        "message": cause.message,
                        "non_retryable": cause.non_retryable,
                        "details": list(cause.details),
                    }
                }
            return {"error": {"type": type(cause).__name__, "message": str(cause)}}


with workflow.unsafe.imports_passed_through():
    from harness.hooks import context_type
    from harness.temporal.models import ActivityPolicy
    from harness.temporal.workflow.agent_runner import LoopOperations
    from harness.temporal.workflow.retries import OperationRunner


@workflow.defn(name="loop-probe")
class LoopProbe:
    """Performs one operation as the agent loop does: ``LoopOperations.run(ctx)`` and nothing else.

    The context's class is looked up in the live catalogue, so an operation a plugin added
    at run time (its context class) runs through the workflow's real path.
    """

    @workflow.run
    async def run(self, operation: str, fields: dict[str, Any]) -> dict:
        ctx = context_type(operation).model_validate(fields)
        ops = LoopOperations(OperationRunner(ActivityPolicy(max_attempts=2)))
        done = await ops.run(ctx)
        return {"type": type(done).__name__, "context": done.model_dump(mode="json")}


@workflow.defn(name="loop-patched-probe")
class LoopPatchedProbe:
    """Asks the agent loop's port, as a guarded loop call site does: ``ops.patched(id)``."""

    @workflow.run
    async def run(self, patch_id: str) -> bool:
        ops = LoopOperations(OperationRunner(ActivityPolicy(max_attempts=2)))
        return ops.patched(patch_id)
