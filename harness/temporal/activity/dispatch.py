"""The bounds of the retry decisions, ``activity.failed`` and ``activity.retried``.

Hooks never run in workflow code, so between attempts the workflow hands the
failure (or the coming retry) to this activity and acts on the decision it returns.
Whatever the executors decided, the decision leaves here within the worker's maxima
(``HARNESS_RETRY_MAX_BACKOFF_SECONDS``, ``HARNESS_RETRY_MAX_ATTEMPTS``): an executor
must not be able to put a task to sleep for ten days or retry it forever (issue 9).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeVar

from harness.domain import RetryDecision
from harness.hooks import HookContext, HookManager
from harness.hooks.contexts import ActivityFailedContext, ActivityRetriedContext

C = TypeVar("C", bound=HookContext)

RETRY_OPERATIONS: Final = (ActivityFailedContext.operation, ActivityRetriedContext.operation)
"""The operations that decide a retry, each in its own activity (and both in the old
``dispatch-hooks-v1``, which workers keep registering: docs/deployment.md)."""


@dataclass(frozen=True, slots=True)
class RetryLimits:
    """The most a retry decision may ask for; the worker's settings, whatever executors say."""

    max_backoff_seconds: float = 60.0
    max_attempts: int = 5


def bounded(ctx: C, limits: RetryLimits, manager: HookManager) -> C:
    """``ctx`` with its retry decision within ``limits``; each cap is audited in ``manager``.

    The finishing step of their activities (:mod:`harness.temporal.activity.hooked`).
    """
    changes: list[str] = []
    if isinstance(ctx, ActivityRetriedContext):
        if ctx.result is not None and ctx.result > limits.max_backoff_seconds:
            changes.append(f"backoff {ctx.result:g}s capped at {limits.max_backoff_seconds:g}s")
            ctx = ctx.model_copy(update={"result": limits.max_backoff_seconds})
    elif isinstance(ctx, ActivityFailedContext) and ctx.result is not None:
        decision = _bounded_decision(ctx, ctx.result, limits, changes)
        ctx = ctx.model_copy(update={"result": decision})
    for change in changes:
        manager.audit.record(
            "capped",
            point=f"{type(ctx).operation}.post",
            executor="worker retry limits",
            reason=change,
            ctx=ctx,
        )
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
