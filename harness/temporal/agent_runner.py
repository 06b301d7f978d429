"""The workflow's side of the agent loop: each loop operation as its activity, with retries.

Workflow code (sandboxed, deterministic). :class:`LoopOperations` is the
:class:`harness.agent.operations.Operations` the task workflow hands to
:class:`~harness.agent.loop.AgentLoop`: it runs an operation's activity through the
workflow-owned retries of :class:`harness.temporal.retries.OperationRunner` and turns
a ``HookAbort`` failure back into :class:`~harness.hooks.HookAbort` (reason, point,
refusal from the failure's details), so the loop behaves as it does in-process: a
vetoed tool call becomes a refused result, any other abort ends the request.
"""

from __future__ import annotations

from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from harness.hooks import HookAbort, HookContext
    from harness.temporal import GAVE_UP_ERROR_TYPE, LOOP_ACTIVITIES, MODEL_OPERATIONS
    from harness.temporal.models import GaveUp
    from harness.temporal.retries import OnRetry, OperationRunner

C = TypeVar("C", bound=HookContext)


class LoopOperations:
    """Runs loop operations as activities (``LOOP_ACTIVITIES`` names each one's activity).

    Args:
        ops: the workflow's operation runner (retries through ``activity.failed``).
        on_model_retry: told before a model operation is tried again (the thread hears it).
    """

    def __init__(self, ops: OperationRunner, *, on_model_retry: OnRetry | None = None) -> None:
        self._ops = ops
        self._on_model_retry = on_model_retry

    async def run(self, operation: str, ctx: C) -> C:
        """Perform ``operation`` on ``ctx`` in its activity.

        Raises:
            HookAbort: an executor aborted the operation (rebuilt from the failure).
            ApplicationError: the operation gave up for any other reason (``TaskGaveUp``).
        """
        try:
            on_retry = self._on_model_retry if operation in MODEL_OPERATIONS else None
            return await self._ops.run(LOOP_ACTIVITIES[operation], ctx, on_retry=on_retry)
        except ApplicationError as error:
            abort = abort_of(error)
            if abort is None:
                raise
            raise abort from None


def abort_of(error: ApplicationError) -> HookAbort | None:
    """The :class:`HookAbort` behind a ``TaskGaveUp`` failure, if an executor aborted."""
    if error.type != GAVE_UP_ERROR_TYPE or not error.details:
        return None
    gave_up = GaveUp.model_validate(error.details[0])
    if not gave_up.abort_point:
        return None
    return HookAbort(gave_up.abort_reason, refusal=gave_up.abort_refusal, point=gave_up.abort_point)
