"""The workflow's side of the agent loop: each loop operation as its activity, with retries.

Workflow code (sandboxed, deterministic). :class:`LoopOperations` is the
:class:`harness.agent.operations.Operations` the task workflow hands to
:class:`~harness.agent.loop.AgentLoop`: it performs an operation's activity through the
workflow-owned retries of :class:`harness.temporal.workflow.retries.OperationRunner`. A tool call
reads the outcome itself (:meth:`LoopOperations.perform`: a veto becomes its refused
result); for any other operation an executor's "no" is raised as the
:class:`~harness.hooks.HookAbort` the loop expects in process too, and a failure that gave
up as :class:`~harness.temporal.workflow.failures.GaveUpError` (the request ends, the task goes on).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.domain.outcome import Asked, Done, Failed, Stopped
    from harness.hooks import HookAbort, HookContext, entry_of
    from harness.hooks.contexts import PlanCreatedContext
    from harness.temporal.workflow.failures import GaveUpError
    from harness.temporal.workflow.retries import HOOK_OUTAGE_NOTICES, SAY_RETRIES, OperationRunner
    from harness.temporal.workflow.turn import Turn

C = TypeVar("C", bound=HookContext)

PLAN_RETRIES_SAID = "plan-retries-said-v1"
"""``workflow.patched`` id: since issue 27 ``plan.created``'s row says ``calls_model`` (writing
a plan is a model call), so its retries are said as a model's; before, only a hook service's
outage was said while it was retried (:data:`HOOK_OUTAGE_NOTICES`)."""

MODEL_ROWS_SINCE: Final = {PlanCreatedContext.operation: PLAN_RETRIES_SAID}
"""Rows that came to say ``calls_model`` after :data:`SAY_RETRIES`, by the id since which a run
says their retries as a model's."""


def says_model_retries(operation: str) -> bool:
    """Whether this run says ``operation``'s retries as a model's: its row says
    ``calls_model``, and said so when the run began (:data:`MODEL_ROWS_SINCE`)."""
    if not entry_of(operation).calls_model:
        return False
    since = MODEL_ROWS_SINCE.get(operation)
    return since is None or workflow.patched(since)


class LoopOperations:
    """Runs loop operations as activities: each ``type(ctx)``'s catalogue row names its activity.

    Args:
        ops: the workflow's operation runner (retries through ``activity.failed``).
        say: says a sentence in the thread: that a model that does not answer, or a hook
            service that is down, is being tried again (:meth:`retrying`).
        before: awaited before each operation (a sub-task reports to its parent there).
    """

    def __init__(
        self,
        ops: OperationRunner,
        *,
        say: Callable[[str], Awaitable[None]] | None = None,
        before: Callable[[HookContext], Awaitable[None]] | None = None,
    ) -> None:
        self._ops = ops
        self._say = say
        self._saying = False
        self._before = before
        self.turn: Turn | None = None
        """The turn running now: its progress rides on each context and takes in each result."""

    def patched(self, patch_id: str) -> bool:
        """``workflow.patched(patch_id)``: the loop's guard for a change to what it performs.

        The id must be listed in :data:`harness.temporal.workflow.patches.PATCHES` (a test
        finds the loop's calls), so a run with local steps decides it at its start.
        """
        return workflow.patched(patch_id)

    async def run(self, ctx: C) -> C:
        """Perform ``type(ctx)``'s operation on ``ctx`` in its activity.

        Raises:
            HookAbort: an executor said no (refused or asked), as it raised it.
            GaveUpError: the operation failed and ``activity.failed`` stopped it.
        """
        outcome = await self.perform(ctx)
        if isinstance(outcome, Done):
            return outcome.context
        point, executor = outcome.point or None, outcome.executor or None
        if isinstance(outcome, Asked):
            raise HookAbort(
                outcome.reason,
                point=point,
                executor=executor,
                ask=True,
                timeout_seconds=outcome.timeout_seconds,
            )
        raise HookAbort(outcome.reason, refusal=outcome.deliberate, point=point, executor=executor)

    async def perform(self, ctx: C) -> Done[C] | Stopped:
        """Perform ``ctx``'s operation in its activity; what an executor said, as a value.

        Its retries are told to :meth:`retrying`: a row that says ``calls_model`` since
        :data:`SAY_RETRIES`, any other since :data:`HOOK_OUTAGE_NOTICES` (issue 26).

        Raises:
            GaveUpError: the operation failed and ``activity.failed`` stopped it.
        """
        if self._before is not None:
            await self._before(ctx)
        operation = type(ctx).operation
        since = SAY_RETRIES if says_model_retries(operation) else HOOK_OUTAGE_NOTICES
        turn = self.turn
        if turn is not None:
            ctx = ctx.model_copy(update={"entities": {**ctx.entities, **turn.entity()}})
            turn.before(ctx)  # after the entity: the context carries the last finished state
        on_retry = self.retrying if self._say is not None else None
        outcome = await self._ops.perform(ctx, on_retry=on_retry, said_since=since)
        if isinstance(outcome, Failed):
            raise GaveUpError(operation, outcome)
        if turn is not None and isinstance(outcome, Done):
            turn.after(outcome.context)
        return outcome

    async def retrying(self, failure: Failed, attempt: int, limit: int) -> None:
        """Say that a model or a hook service is being tried again, so silence is never the
        answer; another operation's own failure is retried silently.

        Said on the first retry and on the last one, not on each: enough to know the task
        is alive without filling the thread. A notice that itself fails is not retold.
        """
        said = says_model_retries(failure.operation) or replies.service_down(failure)
        if self._say is None or attempt not in (2, limit) or not said or self._saying:
            return
        self._saying = True
        try:
            await self._say(replies.retrying(failure, attempt, limit))
        finally:
            self._saying = False
