"""Workflow-owned retries: run an operation's activity, and decide each retry through hooks.

Workflow code (runs in the sandbox, deterministic). Every activity is started with
Temporal's retries off; on failure ``activity.failed`` decides whether and when to
try again and ``activity.retried`` confirms the backoff, both via ``dispatch_hooks``
(DESIGN.md, "Semantics"). The idempotency key is fixed per operation, the attempt
number grows, and giving up raises a :class:`GaveUpError` (a ``TaskGaveUp``
``ApplicationError``); when an executor aborted, the rebuilt
:class:`~harness.hooks.HookAbort` rides on it (:mod:`harness.temporal.aborts`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TypeVar, final

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    CancelledError,
    TimeoutError,
    TimeoutType,
)

with workflow.unsafe.imports_passed_through():
    from harness.channels import replies
    from harness.hooks import DISPATCH_HOOKS, HookAbort, activity_of, entry_of
    from harness.hooks.contexts import (
        ActivityFailedContext,
        ActivityRetriedContext,
        HookContext,
    )
    from harness.temporal import (
        GAVE_UP_ERROR_TYPE,
        USER_MESSAGE,
        WORKER_SHUTDOWN_ERROR_TYPE,
    )
    from harness.temporal.aborts import abort_of
    from harness.temporal.models import ActivityPolicy, GaveUp

C = TypeVar("C", bound=HookContext)
_ONCE = RetryPolicy(maximum_attempts=1)

OnRetry = Callable[[GaveUp, int, int], Awaitable[None]]
"""Told ``(failure, next attempt, max attempts)`` before an operation is tried again."""

SAY_RETRIES = "say-retries"
"""``workflow.patched`` id: since issue 11 a retry may post a notice (a ``channel.sent``)."""

ABORTS_FINAL = "aborts-final"
"""``workflow.patched`` id: since issue 12 an aborted operation is never tried again, whatever
``activity.failed`` decides (DESIGN: an abort cancels the operation). activity.failed still
runs, so its observers see every failure."""


class OperationRunner:
    """Runs hook-wrapped operations as activities for one workflow run.

    Args:
        policy: timeouts and the default number of attempts.
    """

    def __init__(self, policy: ActivityPolicy) -> None:
        info = workflow.info()
        self.policy = policy
        # Run id too: a task id can be reused by a later run, whose writes are new ones.
        self._prefix = f"{info.workflow_id}/{info.run_id}"
        self._count = 0

    async def run(
        self,
        ctx: C,
        *,
        max_attempts: int | None = None,
        on_retry: OnRetry | None = None,
    ) -> C:
        """Perform ``ctx``'s operation in its activity until it succeeds or gives up.

        Args:
            ctx: the context; its type names the operation, whose catalogue row names the
                activity. ``attempt`` and ``idempotency_key`` are set here.
            max_attempts: overrides the row's ``attempts`` (commands get one) and the policy.
            on_retry: told before each retry's backoff, so a person waiting hears why
                nothing happens (its own failure is its business: it must not raise).

        Returns:
            The context the activity returned (after pre, in and post).

        Raises:
            GaveUpError: type ``TaskGaveUp`` with :class:`GaveUp` details (and the abort).
        """
        self._count += 1
        key = f"{self._prefix}/{self._count}"
        limit = max_attempts or entry_of(type(ctx).operation).attempts or self.policy.max_attempts
        operation = type(ctx).operation
        activity = activity_of(operation)
        attempt = 1
        while True:
            current = ctx.model_copy(update={"attempt": attempt, "idempotency_key": key})
            try:
                return await self._execute(activity, current, type(ctx))
            except ActivityError as error:
                abort = abort_of(error)
                failure = _describe(error, operation, abort)
            decided = await self._dispatch(
                ActivityFailedContext(
                    **_common(ctx),
                    attempt=attempt,
                    idempotency_key=f"{key}/failed/{attempt}",
                    activity=activity,
                    failed_operation=operation,
                    error_type=failure.error_type,
                    error_message=failure.error_message,
                    retryable=failure.retryable,
                    max_attempts=limit,
                ),
                failure,
                attempt,
                abort,
            )
            decision = decided.result
            if abort and decision and decision.retry and workflow.patched(ABORTS_FINAL):
                reason = f"aborted at {abort.point}: {abort.reason} (an abort is not tried again)"
                decision = decision.model_copy(update={"retry": False, "reason": reason})
            if decision is None or not decision.retry:
                reason = decision.reason if decision else "no activity.failed body decided"
                update = {"attempt": attempt, "reason": reason}
                raise GaveUpError(failure.model_copy(update=update), abort)
            retried = await self._dispatch(
                ActivityRetriedContext(
                    **_common(ctx),
                    attempt=attempt + 1,
                    idempotency_key=f"{key}/retried/{attempt + 1}",
                    activity=activity,
                    failed_operation=operation,
                    backoff_seconds=decision.backoff_seconds,
                ),
                failure,
                attempt,
                abort,
            )
            backoff = decision.backoff_seconds if retried.result is None else retried.result
            if on_retry is not None and workflow.patched(SAY_RETRIES):
                await on_retry(failure.model_copy(update={"attempt": attempt}), attempt + 1, limit)
            if backoff > 0:
                await workflow.sleep(backoff)
            attempt += 1

    async def _execute(self, activity: str, ctx: C, result_type: type[C]) -> C:
        """Run one attempt; an attempt whose worker was lost is run again, as the same attempt.

        A dead worker (no heartbeat within the timeout) or one that stopped mid-attempt
        says nothing about the operation, so the attempt is started again on whichever
        worker polls next: no attempt is used up and ``activity.failed`` does not run
        (issue 10). ``lost_workers`` tells side-effecting executors that the attempt
        may have done its work already. Only an attempt that loses more workers than
        the policy allows (one that kills every worker it runs on) fails as such.
        """
        lost = 0
        while True:
            try:
                result: C = await workflow.execute_activity(
                    activity,
                    ctx,
                    result_type=result_type,
                    start_to_close_timeout=timedelta(seconds=self.policy.start_to_close_seconds),
                    heartbeat_timeout=timedelta(seconds=self.policy.heartbeat_seconds),
                    retry_policy=_ONCE,
                    summary=_summary(ctx, lost),
                )
                return result
            except ActivityError as error:
                if not _worker_lost(error) or lost >= self.policy.max_worker_losses:
                    raise
                if not workflow.patched(RUN_AGAIN_ON_LOST_WORKER):
                    raise  # a history from before this rule: replay it as it ran
                lost += 1
                workflow.logger.warning(
                    "%s attempt %d lost its worker (%s); running it again (%d of %d)",
                    type(ctx).operation,
                    ctx.attempt,
                    _describe_loss(error),
                    lost,
                    self.policy.max_worker_losses,
                )
                ctx = ctx.model_copy(update={"lost_workers": lost})

    async def _dispatch(self, ctx: C, failure: GaveUp, attempt: int, abort: HookAbort | None) -> C:
        """Run a retry hook; if that fails too there is nothing left to decide with: give up.

        The operation's own ``abort`` (not the hook's) is what the failure carries on.
        """
        try:
            return await self._execute(DISPATCH_HOOKS, ctx, type(ctx))
        except ActivityError as error:
            hook = type(ctx).operation
            cause = _describe(error, hook, abort_of(error))
            verb = "aborted" if cause.abort_point else "failed"
            reason = f"{hook} {verb}: {cause.error_message}"
            update = {"attempt": attempt, "reason": reason}
            raise GaveUpError(failure.model_copy(update=update), abort) from None


RUN_AGAIN_ON_LOST_WORKER = "run-again-on-lost-worker"
"""``workflow.patched`` id: before issue 10 a lost worker went to ``activity.failed``."""


def _summary(ctx: HookContext, lost: int) -> str:
    text = f"{type(ctx).operation} attempt {ctx.attempt}"
    return text + (f", again after {lost} lost worker(s)" if lost else "")


def _worker_lost(error: ActivityError) -> bool:
    """Whether the attempt ended because its worker went away, not because of the operation."""
    cause = error.cause
    if isinstance(cause, TimeoutError):
        return cause.type in (TimeoutType.HEARTBEAT, TimeoutType.SCHEDULE_TO_START)
    return isinstance(cause, ApplicationError) and cause.type == WORKER_SHUTDOWN_ERROR_TYPE


def _describe_loss(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, TimeoutError) and cause.type is not None:
        return f"{cause.type.name.lower()} timeout"
    return "worker shut down"


def _common(ctx: HookContext) -> dict[str, object]:
    return {
        "task": ctx.task,
        "participants": ctx.participants,
        "entities": ctx.entities,
        "correlation_id": ctx.correlation_id,
    }


class _Failure(GaveUp):
    retryable: bool = True


def _describe(error: ActivityError, operation: str, abort: HookAbort | None) -> _Failure:
    cause = error.cause
    if isinstance(cause, CancelledError):
        raise error  # the workflow itself is being cancelled: not a failure to retry
    if isinstance(cause, ApplicationError):
        return _Failure(
            operation=operation,
            attempt=0,
            reason="",
            error_type=cause.type or "ApplicationError",
            error_message=cause.message,
            abort_point=(abort.point or "") if abort else "",
            abort_reason=abort.reason if abort else "",
            abort_refusal=abort.refusal if abort else False,
            retryable=not cause.non_retryable,
            user_message=_user_message(cause) if abort is None else "",
        )
    if isinstance(cause, TimeoutError):
        kind = cause.type.name if cause.type else "UNKNOWN"
        return _Failure(
            operation=operation,
            attempt=0,
            reason="",
            error_type=f"Timeout.{kind}",
            error_message=str(cause),
        )
    text = str(cause) if cause else str(error)
    kind = type(cause).__name__ if cause else type(error).__name__
    return _Failure(operation=operation, attempt=0, reason="", error_type=kind, error_message=text)


def _user_message(cause: ApplicationError) -> str:
    first = cause.details[0] if cause.details else None
    said = first.get(USER_MESSAGE) if isinstance(first, dict) else None
    return said if isinstance(said, str) else ""


@final
class GaveUpError(ApplicationError):
    """The ``TaskGaveUp`` failure an operation ends with when ``activity.failed`` stops it.

    An ``ApplicationError`` (so the update or the workflow fails with it as Temporal
    failures do), typed on the workflow's side: :attr:`gave_up` holds its details and
    :attr:`abort` the :class:`~harness.hooks.HookAbort` behind it, if an executor aborted
    the operation, as :func:`harness.temporal.aborts.abort_of` rebuilt it once.

    Args:
        failure: the last failure and why it stopped.
        abort: the operation's abort, or ``None`` when it failed otherwise.
    """

    def __init__(self, failure: GaveUp, abort: HookAbort | None) -> None:
        details = GaveUp.model_validate(failure.model_dump(exclude={"retryable"}))
        super().__init__(
            f"{details.operation} gave up after attempt {details.attempt}: {details.reason}",
            details.model_dump(),
            type=GAVE_UP_ERROR_TYPE,
            non_retryable=True,
        )
        self.gave_up = details
        self.abort = abort


def refusal_of(error: ApplicationError) -> str | None:
    """The reason of an operation that was refused, or ``None`` if it failed otherwise.

    A refusal is a ``HookAbort`` from any pre executor (DESIGN.md "command.invoked"),
    or one raised with ``refusal=True`` in any phase (the identity seal catches a
    changed sender on post).
    """
    if error.type == GAVE_UP_ERROR_TYPE and error.details:
        gave_up = GaveUp.model_validate(error.details[0])
        if replies.is_refusal(refusal=gave_up.abort_refusal, point=gave_up.abort_point):
            return gave_up.abort_reason
    return None


def failure_sentence(error: ApplicationError) -> str:
    """What a failed operation tells the person waiting: the error's own human sentence
    when it has one (with how often it was tried), else the technical message."""
    if error.type != GAVE_UP_ERROR_TYPE or not error.details:
        return error.message
    gave_up = GaveUp.model_validate(error.details[0])
    if not gave_up.user_message:
        return error.message
    tries = f" (tried {gave_up.attempt} times)" if gave_up.attempt > 1 else ""
    return f"{gave_up.user_message}{tries}"


def command_reply(typed: str, error: ApplicationError) -> str:
    """The reply to a command whose operation failed (:mod:`harness.channels.replies`).

    ``refused: <reason>`` for a refusal; otherwise ``<typed> failed: <message>``, the
    message being an abort's reason or the error's own (``/model failed: …``).

    Args:
        typed: the command as typed (:func:`harness.channels.replies.spelled`).
        error: what the operation, or applying its effects, raised.
    """
    reason = refusal_of(error)
    if reason is not None:
        return replies.refused(reason)
    if error.type == GAVE_UP_ERROR_TYPE and error.details:
        gave_up = GaveUp.model_validate(error.details[0])
        return replies.failed(typed, gave_up.abort_reason or gave_up.error_message)
    return replies.failed(typed, error.message)
