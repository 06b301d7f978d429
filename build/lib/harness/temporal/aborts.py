"""A ``HookAbort`` across the activity boundary: the one translation there and the one back.

Activity side, :func:`abort_failure` turns the abort into the non-retryable
``ApplicationError`` of type ``HookAbort`` that history keeps; workflow side,
:func:`abort_of` rebuilds the same :class:`~harness.hooks.HookAbort` (reason, refusal,
point, executor, ask and its timeout) from the activity's failure. Nothing in between
reads the details again: the workflow's runner carries the rebuilt abort on the failure it
gives up with (:class:`harness.temporal.retries.GaveUpError`), and the loop's adapter
re-raises it.
Workflow-safe (no I/O), so the workflow sandbox imports it.
"""

from __future__ import annotations

from temporalio.exceptions import ActivityError, ApplicationError, ApplicationErrorCategory

from harness.hooks import HookAbort
from harness.temporal import ABORT_ERROR_TYPE


def abort_failure(abort: HookAbort) -> ApplicationError:
    """The activity failure that carries ``abort`` to the workflow.

    A refusal is an answer, not a fault: ``BENIGN`` keeps Temporal from logging a
    traceback per refused command (the manager already logs it in one line).

    Args:
        abort: what an executor raised (its reason already redacted by the manager).

    Returns:
        A non-retryable ``ApplicationError`` of type ``HookAbort``, details
        ``{reason, refusal, point, executor, ask, timeout_seconds}``.
    """
    details = {
        "reason": abort.reason,
        "refusal": abort.refusal,
        "point": abort.point or "",
        "executor": abort.executor or "",
        "ask": abort.ask,
        "timeout_seconds": abort.timeout_seconds,
    }
    benign = ApplicationErrorCategory.BENIGN
    category = benign if abort.refusal else ApplicationErrorCategory.UNSPECIFIED
    return ApplicationError(
        str(abort), details, type=ABORT_ERROR_TYPE, non_retryable=True, category=category
    )


def abort_of(error: ActivityError) -> HookAbort | None:
    """The :class:`HookAbort` an activity failed with, or ``None`` if it failed otherwise.

    Args:
        error: what ``workflow.execute_activity`` raised.

    Returns:
        The abort as the executor raised it, rebuilt from :func:`abort_failure`'s details
        (a history written before ``ask`` existed has no such key: not an ask).
    """
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type != ABORT_ERROR_TYPE:
        return None
    details = cause.details[0] if cause.details else None
    if not isinstance(details, dict):
        return None  # not one abort_failure made: a failure like any other
    return HookAbort(
        str(details.get("reason", "")),
        refusal=details.get("refusal") is True,
        point=str(details.get("point", "")) or None,
        executor=str(details.get("executor", "")) or None,
        ask=details.get("ask") is True,
        timeout_seconds=_seconds(details.get("timeout_seconds")),
    )


def _seconds(value: object) -> float:
    """A timeout from the details; anything not a non-negative number is 0 (no timeout)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return max(float(value), 0.0)
