"""The workflow's side of the agent loop: each loop operation as its activity, with retries.

Workflow code (sandboxed, deterministic). :class:`LoopOperations` is the
:class:`harness.agent.operations.Operations` the task workflow hands to
:class:`~harness.agent.loop.AgentLoop`: it runs an operation's activity through the
workflow-owned retries of :class:`harness.temporal.retries.OperationRunner` and, when an
executor aborted it, raises the :class:`~harness.hooks.HookAbort` that runner's
:class:`~harness.temporal.retries.GaveUpError` carries, so the loop behaves as it does
in-process: a vetoed tool call becomes a refused result, any other abort ends the request.
"""

from __future__ import annotations

from typing import TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.hooks import HookContext, entry_of
    from harness.temporal.retries import GaveUpError, OnRetry, OperationRunner
    from harness.temporal.turn import Turn

C = TypeVar("C", bound=HookContext)


class LoopOperations:
    """Runs loop operations as activities: each ``type(ctx)``'s catalogue row names its activity.

    Args:
        ops: the workflow's operation runner (retries through ``activity.failed``).
        on_model_retry: told before a model operation is tried again (the thread hears it).
    """

    def __init__(self, ops: OperationRunner, *, on_model_retry: OnRetry | None = None) -> None:
        self._ops = ops
        self._on_model_retry = on_model_retry
        self.turn: Turn | None = None
        """The turn running now: its progress rides on each context and takes in each result."""

    async def run(self, ctx: C) -> C:
        """Perform ``type(ctx)``'s operation on ``ctx`` in its activity.

        A row that says ``calls_model`` has its retries said in the thread.

        Raises:
            HookAbort: an executor aborted the operation (as the runner rebuilt it).
            GaveUpError: the operation gave up for any other reason (``TaskGaveUp``).
        """
        on_retry = self._on_model_retry if entry_of(type(ctx).operation).calls_model else None
        turn = self.turn
        if turn is not None:
            ctx = ctx.model_copy(update={"entities": {**ctx.entities, **turn.entity()}})
        try:
            done = await self._ops.run(ctx, on_retry=on_retry)
        except GaveUpError as error:
            if error.abort is None:
                raise
            raise error.abort from None
        if turn is not None:
            turn.after(done)
        return done
