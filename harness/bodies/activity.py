"""Default bodies around activities: activity.failed, activity.retried, heartbeat.tick, shutdown.

The retry decision is exponential backoff with jitter (:class:`~harness.domain.RetryDefaults`);
the workflow bounds whatever an executor decides (:mod:`harness.temporal.activity.dispatch`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self, final

from harness.bodies.marker import Bodies, Wiring, body
from harness.domain import RetryDecision, RetryDefaults
from harness.hooks.contexts import (
    ActivityFailedContext,
    ActivityRetriedContext,
    HeartbeatTickContext,
    ShutdownContext,
)

if TYPE_CHECKING:
    from harness.providers import RandomSource


@final
class ActivityBodies(Bodies):
    """Bodies of the activity operations.

    Args:
        random: jitter for retry backoff (a provider, so tests can fix it).
        retry: the backoff schedule.
    """

    def __init__(self, *, random: RandomSource, retry: RetryDefaults) -> None:
        self.random = random
        self.retry = retry

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(random=wiring.deps.random, retry=wiring.deps.retry)

    @body(ActivityFailedContext)
    async def activity_failed(self, ctx: ActivityFailedContext) -> ActivityFailedContext:
        """Retry with exponential backoff and jitter until ``max_attempts`` is reached."""
        limit = min(ctx.max_attempts, self.retry.max_attempts or ctx.max_attempts)
        if not ctx.retryable or ctx.error_type in self.retry.non_retryable:
            decision = RetryDecision(retry=False, reason=f"{ctx.error_type}: {ctx.error_message}")
        elif ctx.attempt >= limit:
            decision = RetryDecision(
                retry=False,
                reason=f"gave up after {ctx.attempt} attempts: "
                f"{ctx.error_type}: {ctx.error_message}",
            )
        else:
            decision = RetryDecision(retry=True, backoff_seconds=self.backoff(ctx.attempt))
        return ctx.model_copy(update={"result": decision})

    @body(ActivityRetriedContext)
    async def activity_retried(self, ctx: ActivityRetriedContext) -> ActivityRetriedContext:
        """Use the backoff the failure decided (never negative)."""
        return ctx.model_copy(update={"result": max(0.0, ctx.backoff_seconds)})

    @body(HeartbeatTickContext)
    async def heartbeat_tick(self, ctx: HeartbeatTickContext) -> HeartbeatTickContext:
        """Keep going; a policy executor may set ``False`` to stop a runaway operation."""
        return ctx.model_copy(update={"result": True})

    @body(ShutdownContext)
    async def shutdown(self, ctx: ShutdownContext) -> ShutdownContext:
        """Say what happens to the work in flight."""
        reason = ctx.reason or "requested"
        note = f"worker stopping ({reason}); {ctx.in_flight} activities in flight"
        return ctx.model_copy(update={"result": note})

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (counting from 1)."""
        retry = self.retry
        base = min(retry.maximum_seconds, retry.initial_seconds * retry.multiplier ** (attempt - 1))
        factor = self.random.uniform(1.0 - retry.jitter, 1.0 + retry.jitter)
        return min(retry.maximum_seconds, base * factor)
