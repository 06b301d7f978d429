"""A failed attempt read once, and the ``TaskGaveUp`` error of an operation that was not done.

Workflow side (sandboxed, no I/O). :func:`describe` is the one place that reads what
``workflow.execute_activity`` raised into a :class:`~harness.domain.outcome.Failed`;
:class:`GaveUpError` is how :meth:`~harness.temporal.workflow.retries.OperationRunner.run` ends
an operation that had to be done and was not (the task, or an update, fails with it).
Neither words anything for people: :mod:`harness.replies` does.
"""

from __future__ import annotations

from typing import final

from temporalio.exceptions import ActivityError, ApplicationError, CancelledError, TimeoutError

from harness.domain.outcome import Asked, Failed, Refused
from harness.temporal import GAVE_UP_ERROR_TYPE, SERVICE, USER_MESSAGE
from harness.temporal.models import GaveUp


def describe(error: ActivityError, operation: str) -> Failed:
    """What one failed attempt of ``operation`` says: its cause, and whether to retry.

    Raises:
        ActivityError: ``error`` itself when the workflow is being cancelled (not a
            failure to retry).
    """
    cause = error.cause
    if isinstance(cause, CancelledError):
        raise error
    if isinstance(cause, ApplicationError):
        return Failed(
            operation=operation,
            retryable=not cause.non_retryable,
            error_type=cause.type or "ApplicationError",
            error_message=cause.message,
            user_message=_detail(cause, USER_MESSAGE),
            service=_detail(cause, SERVICE),
        )
    if isinstance(cause, TimeoutError):
        kind = cause.type.name if cause.type else "UNKNOWN"
        return Failed(
            operation=operation,
            retryable=True,
            error_type=f"Timeout.{kind}",
            error_message=str(cause),
        )
    text = str(cause) if cause else str(error)
    kind = type(cause).__name__ if cause else type(error).__name__
    return Failed(operation=operation, retryable=True, error_type=kind, error_message=text)


def _detail(cause: ApplicationError, key: str) -> str:
    first = cause.details[0] if cause.details else None
    said = first.get(key) if isinstance(first, dict) else None
    return said if isinstance(said, str) else ""


@final
class GaveUpError(ApplicationError):
    """The ``TaskGaveUp`` failure of an operation that had to be done and was not.

    An ``ApplicationError`` (so the update or the workflow fails with it as Temporal
    failures do); :attr:`outcome` is what the operation came to, the one copy of its facts
    on this side. The details are :class:`~harness.temporal.models.GaveUp`, the shape
    histories have always held, derived from it.

    Args:
        operation: the operation.
        outcome: why it was not done.
    """

    def __init__(self, operation: str, outcome: Refused | Asked | Failed) -> None:
        if isinstance(outcome, Failed):
            details = GaveUp(
                operation=operation,
                attempt=outcome.attempt,
                reason=outcome.reason,
                error_type=outcome.error_type,
                error_message=outcome.error_message,
                user_message=outcome.user_message,
            )
            message = f"{operation} gave up after attempt {outcome.attempt}: {outcome.reason}"
        else:
            details = GaveUp(
                operation=operation,
                attempt=1,
                reason=outcome.reason,
                abort_point=outcome.point,
                abort_reason=outcome.reason,
                abort_refusal=isinstance(outcome, Asked) or outcome.deliberate,
            )
            who = f" by {outcome.executor}" if outcome.executor else ""
            message = f"{operation} {outcome.outcome} at {outcome.point}{who}: {outcome.reason}"
        super().__init__(message, details.model_dump(), type=GAVE_UP_ERROR_TYPE, non_retryable=True)
        self.outcome = outcome


def outcome_of(error: ApplicationError) -> Refused | Asked | Failed:
    """What an operation that raised ``error`` in workflow code came to (for the reply)."""
    if isinstance(error, GaveUpError):
        return error.outcome
    return Failed(operation="", error_type=error.type or "")
