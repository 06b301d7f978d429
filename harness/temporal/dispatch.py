"""The ``dispatch_hooks`` activity: runs ``activity.failed`` and ``activity.retried``, bounded.

Hooks never run in workflow code, so between attempts the workflow hands the
failure (or the coming retry) to this activity and acts on the decision it returns.
Whatever the executors decided, the decision leaves here within the worker's maxima
(``HARNESS_RETRY_MAX_BACKOFF_SECONDS``, ``HARNESS_RETRY_MAX_ATTEMPTS``): an executor
must not be able to put a task to sleep for ten days or retry it forever (issue 9).
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import activity

from harness.hooks import HookManager
from harness.hooks.contexts import ActivityFailedContext, ActivityRetriedContext, RetryDecision
from harness.providers import Clock
from harness.temporal import DISPATCH_HOOKS
from harness.temporal.wrapper import ActivityHost, hooked

RetryContext = ActivityFailedContext | ActivityRetriedContext


@dataclass(frozen=True, slots=True)
class RetryLimits:
    """The most a retry decision may ask for; the worker's settings, whatever executors say."""

    max_backoff_seconds: float = 60.0
    max_attempts: int = 5


class DispatchHooks(ActivityHost):
    """Hosts ``dispatch_hooks``; ``HarnessActivities`` extends it with the other activities.

    Args:
        manager: runs the chains.
        clock: see :class:`ActivityHost`.
        heartbeat_seconds: see :class:`ActivityHost`.
        retry_limits: the worker's maxima (its settings); the defaults' when omitted.
    """

    def __init__(
        self, manager: HookManager, *, clock: Clock | None = None, heartbeat_seconds: float = 3.0,
        retry_limits: RetryLimits | None = None,
    ) -> None:  # fmt: skip
        super().__init__(manager, clock=clock, heartbeat_seconds=heartbeat_seconds)
        self.retry_limits = retry_limits or RetryLimits()

    @activity.defn(name=DISPATCH_HOOKS)
    @hooked(finish=lambda host, ctx: bounded(host, ctx))
    async def dispatch_hooks(self, ctx: RetryContext) -> RetryContext:
        """Run the chains of the operation the context belongs to (failed or retried), capped.

        The two context types are told apart by their fields (both forbid extras).
        """
        return ctx


def bounded(host: DispatchHooks, ctx: RetryContext) -> RetryContext:
    """``ctx`` with its decision within ``host.retry_limits``; each cap is audited."""
    limits = host.retry_limits
    changes: list[str] = []
    if isinstance(ctx, ActivityRetriedContext):
        if ctx.result is not None and ctx.result > limits.max_backoff_seconds:
            changes.append(f"backoff {ctx.result:g}s capped at {limits.max_backoff_seconds:g}s")
            ctx = ctx.model_copy(update={"result": limits.max_backoff_seconds})
    elif ctx.result is not None:
        decision = _bounded_decision(ctx, ctx.result, limits, changes)
        ctx = ctx.model_copy(update={"result": decision})
    for change in changes:
        host.manager.audit.record("capped", point=f"{type(ctx).operation}.post",
                                  executor="worker retry limits", reason=change,
                                  ctx=ctx)  # fmt: skip
    return ctx


def _bounded_decision(
    ctx: ActivityFailedContext, decision: RetryDecision, limits: RetryLimits, changes: list[str]
) -> RetryDecision:
    if not decision.retry:
        return decision
    limit = min(ctx.max_attempts, limits.max_attempts)
    if ctx.attempt >= limit:
        changes.append(f"retry after attempt {ctx.attempt} refused: at most {limit} attempts")
        reason = f"gave up after {ctx.attempt} attempts (the most allowed): {ctx.error_type}"
        return RetryDecision(retry=False, reason=f"{reason}: {ctx.error_message}")
    if decision.backoff_seconds > limits.max_backoff_seconds:
        changes.append(
            f"backoff {decision.backoff_seconds:g}s capped at {limits.max_backoff_seconds:g}s"
        )
        return decision.model_copy(update={"backoff_seconds": limits.max_backoff_seconds})
    return decision
