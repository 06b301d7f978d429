"""Workflow-owned retries: perform an operation's activity, and decide each retry through hooks.

Workflow code (runs in the sandbox, deterministic). Every activity is started with
Temporal's retries off. :meth:`OperationRunner.perform` returns what the operation came
to as one :data:`~harness.domain.outcome.Outcome`: an executor's abort is the activity's
*result* (``Refused`` or ``Asked``), read as it is, with no ``activity.failed`` after it;
a real failure goes to ``activity.failed``, which decides whether and when to try again,
and ``activity.retried``, which confirms the backoff, each in its own activity (DESIGN.md,
"Semantics"), until it succeeds or ``Failed``. The idempotency key is fixed per operation,
the attempt number grows. :meth:`OperationRunner.run` is the same for callers with no use
for a "no": anything but done raises :class:`~harness.temporal.workflow.failures.GaveUpError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import (
    ActivityError,
    ApplicationError,
    TimeoutError,
    TimeoutType,
)

with workflow.unsafe.imports_passed_through():
    from harness.domain.outcome import Asked, Done, Failed, Outcome, Refused, Stopped
    from harness.hooks import (
        DISPATCH_HOOKS,
        activity_of,
        changes_name,
        entry_of,
        refs_name,
    )
    from harness.hooks.contexts import (
        ActivityFailedContext,
        ActivityRetriedContext,
        HookContext,
    )
    from harness.temporal import WORKER_SHUTDOWN_ERROR_TYPE
    from harness.temporal.models import ActivityPolicy, Changed, applied
    from harness.temporal.refs import MessageRefs, message_fields
    from harness.temporal.workflow.aborts import abort_of
    from harness.temporal.workflow.failures import GaveUpError, describe
    from harness.temporal.workflow.local_steps import recorded, run_local, runs_locally

C = TypeVar("C", bound=HookContext)
_ONCE = RetryPolicy(maximum_attempts=1)

OnRetry = Callable[[Failed, int, int], Awaitable[None]]
"""Told ``(failure, next attempt, max attempts)`` before an operation is tried again."""

SAY_RETRIES = "say-retries"
"""``workflow.patched`` id: since issue 11 a retry may post a notice (a ``channel.sent``)."""

ABORTS_FINAL = "aborts-final"
"""``workflow.patched`` id: since issue 12 an aborted operation is never tried again, whatever
``activity.failed`` decides (DESIGN: an abort cancels the operation). Only histories from
before :data:`OUTCOMES` still take this path: since then an abort never reaches it."""

OUTCOMES = "outcomes-v1"
"""``workflow.patched`` id: since issue 25 an abort is an outcome, not a failure: no
``activity.failed`` runs after it (an older worker's ``HookAbort`` failure reads as the
``Refused``/``Asked`` value today's activities return)."""

HOOK_OUTAGE_NOTICES = "hook-outage-notices-v1"
"""``workflow.patched`` id: since issue 26 the retries of any loop operation may post a notice
(a hook service that is down is said while it is retried, as a model that does not answer);
before, only a model operation's did (:data:`SAY_RETRIES`)."""

LEAN_RESULTS = "lean-results-v1"
"""``workflow.patched`` id: since issue 27 an operation runs as its ``*-changes-v1`` activity,
whose result is only what its chains changed (:class:`~harness.temporal.models.Changed`);
before, every result was the whole context."""

STRAND_KEYS = "strand-keys-v1"
"""``workflow.patched`` id: since issue 27 an operation run by an update's handler is keyed by
that update (its id and a count of its own), not by the run's one count of operations: which
of the main loop and a handler asks first can differ when a killed worker's workflow task is
run again, and a local step's key must be the one its first run used
(:meth:`OperationRunner.key`)."""

MESSAGES_BY_REF = "messages-by-ref-v1"
"""``workflow.patched`` id: since issue 27 an operation whose context holds messages runs as
its ``*-refs-v1`` activity, sent each message whole once and then by number
(:mod:`harness.temporal.refs`); before, every model call's input held the whole window."""

RETRY_ACTIVITIES = "retry-activities-v1"
"""``workflow.patched`` id: since issue 25 ``activity.failed`` and ``activity.retried`` each
run in an activity of their own type, not both in ``dispatch-hooks-v1``."""


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
        self._by_update: dict[str, int] = {}
        self._refs = MessageRefs(self._prefix)

    async def run(
        self, ctx: C, *, max_attempts: int | None = None, on_retry: OnRetry | None = None
    ) -> C:
        """:meth:`perform`, for an operation that must be done: its output context.

        Raises:
            GaveUpError: type ``TaskGaveUp``; the outcome that was not done rides on it.
        """
        outcome = await self.perform(ctx, max_attempts=max_attempts, on_retry=on_retry)
        if isinstance(outcome, Done):
            return outcome.context
        raise GaveUpError(type(ctx).operation, outcome)

    async def perform(
        self,
        ctx: C,
        *,
        max_attempts: int | None = None,
        on_retry: OnRetry | None = None,
        said_since: str = SAY_RETRIES,
    ) -> Outcome[C]:
        """Perform ``ctx``'s operation in its activity until it is done, refused or failed.

        Args:
            ctx: the context; its type names the operation, whose catalogue row names the
                activity. ``attempt`` and ``idempotency_key`` are set here.
            max_attempts: overrides the row's ``attempts`` (commands get one) and the policy.
            on_retry: told before each retry's backoff, so a person waiting hears why
                nothing happens (its own failure is its business: it must not raise).
            said_since: the ``workflow.patched`` id since which ``on_retry`` is told (a
                history from before it replays without the notices it never posted).

        Returns:
            ``Done`` with the context the activity returned (after pre, in and post);
            ``Refused`` or ``Asked`` as an executor answered (one activity, never retried);
            ``Failed`` when ``activity.failed`` stopped it.
        """
        key = self.key()
        limit = max_attempts or entry_of(type(ctx).operation).attempts or self.policy.max_attempts
        operation = type(ctx).operation
        lean = workflow.patched(LEAN_RESULTS)
        by_ref = lean and bool(message_fields(type(ctx))) and workflow.patched(MESSAGES_BY_REF)
        activity = activity_of(operation)
        activity = refs_name(activity) if by_ref else changes_name(activity) if lean else activity
        attempt = 1
        while True:
            current = ctx.model_copy(update={"attempt": attempt, "idempotency_key": key})
            try:
                result = await self._execute(activity, current, type(ctx), lean=lean, by_ref=by_ref)
            except ActivityError as error:
                abort = abort_of(error)
                if abort is not None and workflow.patched(OUTCOMES):
                    return abort  # an older worker's abort: the same answer, read the same
                failure = describe(error, operation).model_copy(update={"attempt": attempt})
            else:
                return result if isinstance(result, Refused | Asked) else Done(result)
            failed = ActivityFailedContext(
                **_common(ctx),
                attempt=attempt,
                idempotency_key=f"{key}/failed/{attempt}",
                activity=activity,
                failed_operation=operation,
                error_type=failure.error_type,
                error_message=failure.error_message,
                retryable=failure.retryable,
                max_attempts=limit,
            )
            decided = await self._dispatch(failed, failure)
            if isinstance(decided, Failed):
                return abort or decided
            decision = decided.result
            if abort and decision and decision.retry and workflow.patched(ABORTS_FINAL):
                decision = decision.model_copy(update={"retry": False})
            if decision is None or not decision.retry:
                if abort is not None:
                    return abort  # a history from before OUTCOMES: activity.failed ran, as then
                undecided = f"no {ActivityFailedContext.operation} body decided"
                reason = decision.reason if decision else undecided
                return failure.model_copy(update={"reason": reason})
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
            )
            if isinstance(retried, Failed):
                return abort or retried
            backoff = decision.backoff_seconds if retried.result is None else retried.result
            if on_retry is not None and workflow.patched(said_since):
                await on_retry(failure, attempt + 1, limit)
            if backoff > 0:
                await workflow.sleep(backoff)
            attempt += 1

    async def recorded(self, operation: type[HookContext]) -> None:
        """:func:`.local_steps.recorded`: the last run of ``operation`` recorded before going on."""
        await recorded(operation)

    def key(self) -> str:
        """The idempotency key of the operation starting now.

        A local step runs before its workflow task is recorded, so its key must not depend
        on what a re-run of that task may order otherwise. A worker killed mid-task leaves
        it to be run again from the last recorded task, where an update that reached the
        server meanwhile and a result recorded before can arrive in one activation, the
        update's handler first: one count for the run gave the same post two keys (posted
        twice) and an attempt claim to another step. So the main loop counts alone and
        each update's handler counts for itself, under the update's id, which the server
        delivers unchanged (since :data:`STRAND_KEYS`).
        """
        update = workflow.current_update_info()
        if update is None or not workflow.patched(STRAND_KEYS):
            self._count += 1
            return f"{self._prefix}/{self._count}"
        count = self._by_update[update.id] = self._by_update.get(update.id, 0) + 1
        return f"{self._prefix}/{update.id}/{count}"

    async def _execute(
        self, activity: str, ctx: C, result_type: type[C], *, lean: bool, by_ref: bool = False
    ) -> C | Stopped:
        """Run one attempt; an attempt whose worker was lost is run again, as the same attempt.

        A row that says ``local`` runs as a local activity (since :data:`LOCAL_STEPS`): in
        this worker, no task-queue round trip. A worker that dies during it fails the
        workflow task, and whichever worker replays it runs the step again (the activity
        claims each attempt, so the step is told ``lost_workers``); a worker that stops
        during it runs the attempt again as a regular activity, which any worker polls.

        A dead worker (no heartbeat within the timeout) or one that stopped mid-attempt
        says nothing about the operation, so the attempt is started again on whichever
        worker polls next: no attempt is used up and ``activity.failed`` does not run
        (issue 10). ``lost_workers`` tells side-effecting executors that the attempt
        may have done its work already. Only an attempt that loses more workers than
        the policy allows (one that kills every worker it runs on) fails as such.

        With ``by_ref`` the context's messages go by id (:class:`MessageRefs`): those the
        store may not hold yet whole, and a failed attempt's whole again the next time.
        """
        lost = 0
        answer: Any = (Changed if lean else result_type) | Refused | Asked  # an abort too
        local = runs_locally(type(ctx).operation)
        while True:
            refs = self._refs.send(ctx) if by_ref else None
            sent: object = ctx if refs is None else refs
            try:
                result: C | Changed | Stopped
                if local:
                    result = await run_local(
                        activity,
                        sent,
                        answer,
                        timeout=timedelta(seconds=self.policy.start_to_close_seconds),
                        retry_policy=_ONCE,
                        summary=_summary(ctx, lost),
                    )
                else:
                    result = await workflow.execute_activity(
                        activity,
                        sent,
                        result_type=answer,
                        start_to_close_timeout=timedelta(
                            seconds=self.policy.start_to_close_seconds
                        ),
                        heartbeat_timeout=timedelta(seconds=self.policy.heartbeat_seconds),
                        retry_policy=_ONCE,
                        summary=_summary(ctx, lost),
                    )
                if refs is not None:
                    self._refs.ended(refs)
                if isinstance(result, Changed):
                    return self._refs.applied(ctx, result) if by_ref else applied(ctx, result)
                return result
            except ActivityError as error:
                if refs is not None:
                    self._refs.failed(refs)
                if not _worker_lost(error) or lost >= self.policy.max_worker_losses:
                    raise
                if not workflow.patched(RUN_AGAIN_ON_LOST_WORKER):
                    raise  # a history from before this rule: replay it as it ran
                lost += 1
                local = False  # this worker is stopping: the task queue finds another
                workflow.logger.warning(
                    "%s attempt %d lost its worker (%s); running it again (%d of %d)",
                    type(ctx).operation,
                    ctx.attempt,
                    _describe_loss(error),
                    lost,
                    self.policy.max_worker_losses,
                )
                ctx = ctx.model_copy(update={"lost_workers": lost})

    async def _dispatch(self, ctx: C, failure: Failed) -> C | Failed:
        """Run a retry hook; if that fails too there is nothing left to decide with: give up.

        Each hook in its own activity; a history from before :data:`RETRY_ACTIVITIES` ran
        both in ``dispatch-hooks-v1`` and replays so. Returns the hook's context, or
        ``failure`` with why it stopped.
        """
        hook = type(ctx).operation
        own = workflow.patched(RETRY_ACTIVITIES)
        try:
            lean = own and workflow.patched(LEAN_RESULTS)
            name = activity_of(hook) if own else DISPATCH_HOOKS
            out = await self._execute(
                changes_name(name) if lean else name, ctx, type(ctx), lean=lean
            )
        except ActivityError as error:
            abort = abort_of(error)
            cause = abort.reason if abort else describe(error, hook).error_message
            verb = "aborted" if abort else "failed"
            return failure.model_copy(update={"reason": f"{hook} {verb}: {cause}"})
        if isinstance(out, Refused | Asked):
            return failure.model_copy(update={"reason": f"{hook} aborted: {out.reason}"})
        return out


RUN_AGAIN_ON_LOST_WORKER = "run-again-on-lost-worker"
"""``workflow.patched`` id: before issue 10 a lost worker went to ``activity.failed``."""


def _summary(ctx: HookContext, lost: int) -> str | None:
    """What the Web UI shows beside a retried or re-run activity; none for a first attempt.

    The activity's type names the operation already, and a summary is an encrypted payload
    of about 190 bytes in history: on every step, a quarter of a local step's marker.
    """
    if ctx.attempt == 1 and not lost:
        return None
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
