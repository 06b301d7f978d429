"""The hooked activity wrapper: an activity's body *is* its operation's pre, in and post chains.

:func:`run_hooked` is the body of every activity
(:func:`harness.temporal.activity.hooked.hooked_activity` builds them from the catalogue): it
runs ``HookManager.run(operation, ctx)``, heartbeats while the chain runs (remote executors
and model calls can be slow, and a dead worker must be noticed in seconds), passes
cancellation into the chain, and maps errors to Temporal failures. An executor's abort is
not a failure: the activity returns it as a value (:func:`harness.domain.outcome.stopped`),
so a veto costs one activity and nothing retries it. Retries are not decided here:
activities run once per attempt and the workflow decides (DESIGN.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Final, TypeVar

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from harness.domain.outcome import Stopped, stopped
from harness.errors import is_retryable
from harness.hooks import HookAbort, HookContext, HookManager, HookTransportError
from harness.hooks.contexts import HeartbeatTickContext
from harness.providers import Clock, SystemClock
from harness.temporal import SERVICE, USER_MESSAGE, WORKER_SHUTDOWN_ERROR_TYPE
from harness.temporal.activity.claims import AttemptClaims, ProcessClaims, claim_key
from harness.temporal.activity.referenced import MessageVault, ProcessVault

log = logging.getLogger(__name__)

HEARTBEAT_STOPPED_ERROR_TYPE: Final = "HeartbeatStopped"

C = TypeVar("C", bound=HookContext)


class ActivityHost:
    """Holds what hooked activities need (Temporal's "activity methods on an object" pattern).

    Args:
        manager: runs the chains.
        clock: measures how long an operation has run, for ``heartbeat.tick``.
        heartbeat_seconds: heartbeat interval when the activity has no heartbeat timeout;
            otherwise a third of that timeout.
        claims: shared by every worker of the deployment (its database); this process's
            own when omitted.
        vault: where messages sent by reference are kept (the deployment's database);
            this process's memory when omitted.
    """

    def __init__(
        self,
        manager: HookManager,
        *,
        clock: Clock | None = None,
        heartbeat_seconds: float = 3.0,
        claims: AttemptClaims | None = None,
        vault: MessageVault | None = None,
    ) -> None:
        self.manager = manager
        self.clock: Clock = clock or SystemClock()
        self.heartbeat_seconds = heartbeat_seconds
        self.claims: AttemptClaims = claims or ProcessClaims()
        """Where local attempts are claimed (:mod:`harness.temporal.activity.claims`)."""
        self.vault: MessageVault = vault or ProcessVault()
        """Where messages sent by reference are kept (:mod:`.referenced`)."""
        self.shutdown_grace_seconds = 10.0
        """How long a stopping worker lets a local step run on (its worker's grace, which
        :func:`harness.temporal.worker.entry.build_worker` sets)."""
        self.in_flight = 0


async def run_hooked(host: ActivityHost, operation: str, ctx: C) -> C | Stopped:
    """Run ``operation``'s chains inside the current activity, heartbeating until they end.

    Returns:
        The output context, or the :data:`~harness.domain.outcome.Stopped` value of an
        executor's abort (``Refused``, or ``Asked`` for an approval question).

    Raises:
        ApplicationError: ``HeartbeatStopped`` when a ``heartbeat.tick`` executor said
            stop; ``HookTransportError`` (details: point, endpoint, cause and the hook
            service's name) when a remote executor failed; otherwise the original error's
            type name.
        asyncio.CancelledError: the activity was cancelled; the chain was cancelled too.
    """
    info = activity.info()
    if info.is_local and ctx.idempotency_key:
        ctx = await _claimed(host.claims, ctx)
    timeout = info.heartbeat_timeout.total_seconds() if info.heartbeat_timeout else 0.0
    interval = timeout / 3 if timeout else host.heartbeat_seconds
    started = host.clock.monotonic()
    host.in_flight += 1
    chain = asyncio.ensure_future(host.manager.run(operation, ctx))
    stopping = _stopping(host) if info.is_local else None
    try:
        while True:
            waiting: set[asyncio.Future[object]] = {chain}  # type: ignore[arg-type]  # a Task[C] is one
            if stopping is not None:
                waiting.add(stopping)
            done, _ = await asyncio.wait(
                waiting, timeout=interval, return_when=asyncio.FIRST_COMPLETED
            )
            if chain in done:
                return chain.result()
            if stopping is not None and stopping in done:
                raise asyncio.CancelledError  # handed on below, as a stopped worker's
            if not info.is_local:  # a local one lives and dies with its workflow task
                activity.heartbeat(operation)
            tick = await host.manager.run(
                HeartbeatTickContext.operation,
                HeartbeatTickContext(
                    task=ctx.task,
                    participants=ctx.participants,
                    entities=ctx.entities,
                    correlation_id=ctx.correlation_id,
                    attempt=ctx.attempt,
                    idempotency_key=ctx.idempotency_key,
                    activity=info.activity_type,
                    elapsed_seconds=host.clock.monotonic() - started,
                    detail=operation,
                ),
            )
            if tick.result is False:
                raise ApplicationError(
                    f"{HeartbeatTickContext.operation} stopped {operation} after "
                    f"{tick.elapsed_seconds:.1f}s: {tick.detail}",
                    type=HEARTBEAT_STOPPED_ERROR_TYPE,
                    non_retryable=True,
                )
    except HookAbort as abort:
        return stopped(abort)
    except HookTransportError as error:
        details = {
            "point": error.point,
            "endpoint": error.endpoint,
            "cause": error.cause,
            SERVICE: error.executor.split("#", 1)[0],
        }
        raise ApplicationError(str(error), details, type=type(error).__name__) from None
    except asyncio.CancelledError:
        why = activity.cancellation_details()
        if (why is not None and why.worker_shutdown) or activity.is_worker_shutdown():
            # The worker stopped, not the operation: a failure of its own type, which the
            # workflow runs again elsewhere, uncounted. Cancelled would read as the task's
            # own cancellation.
            raise ApplicationError(
                f"the worker stopped while {operation} ran; it runs again on another worker",
                type=WORKER_SHUTDOWN_ERROR_TYPE,
                category=ApplicationErrorCategory.BENIGN,
            ) from None
        raise
    except ApplicationError:
        raise
    except Exception as error:
        # The traceback stays in this worker's log; history gets the type, a redacted
        # text and whether retrying can help: only this side still has the exception,
        # so an error that knows it is permanent (a model with no provider configured,
        # a vendor's 4xx) must say so here or the workflow retries it max_attempts times.
        log.exception("%s failed in activity %s", operation, info.activity_type)
        redact = host.manager.redactor.redact_text
        said = getattr(error, "user_message", "")
        human = [{USER_MESSAGE: redact(said)}] if isinstance(said, str) and said else []
        raise ApplicationError(
            redact(str(error)),
            *human,
            type=type(error).__name__,
            non_retryable=not is_retryable(error),
        ) from None
    finally:
        host.in_flight -= 1
        if stopping is not None:
            stopping.cancel()
        if not chain.done():
            chain.cancel()
            with contextlib.suppress(BaseException):
                await chain


async def _claimed(claims: AttemptClaims, ctx: C) -> C:
    """``ctx``, told ``lost_workers`` when this local attempt was claimed before: an earlier
    run died with its workflow task and may have done the work (:mod:`.claims`)."""
    lost = ctx.lost_workers
    while not await claims.claim([claim_key(ctx.idempotency_key, ctx.attempt, lost)]):
        lost += 1
    if lost == ctx.lost_workers:
        return ctx
    log.warning(
        "%s attempt %d lost its worker (its workflow task was run again); running it again",
        type(ctx).operation,
        ctx.attempt,
    )
    return ctx.model_copy(update={"lost_workers": lost})


def _stopping(host: ActivityHost) -> asyncio.Future[object]:
    """Done once this worker has been stopping for its grace.

    A stopping worker cancels its regular activities after the grace, and the workflow
    runs them again elsewhere; it would wait for a local one until its timeout (it
    belongs to the workflow task this worker holds). So a local step ends itself then,
    as a stopped worker's, and the workflow runs the attempt again as a regular
    activity, which another worker polls (:mod:`harness.temporal.workflow.retries`).
    """

    async def graced() -> object:
        await activity.wait_for_worker_shutdown()
        await asyncio.sleep(host.shutdown_grace_seconds)
        return None

    return asyncio.ensure_future(graced())
