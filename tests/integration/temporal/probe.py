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
