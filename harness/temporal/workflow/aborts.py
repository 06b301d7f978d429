"""An abort an older worker sent as a failure, read back as the value today's activities return.

Until issue 25 an executor's abort crossed the activity boundary as a non-retryable
``ApplicationError`` of type ``HookAbort`` (details ``{reason, refusal, point, executor,
ask, timeout_seconds}``); today the activity returns
:func:`~harness.domain.outcome.stopped` of it as its result. Recorded histories and
workers from before still produce the failure, so :func:`abort_of` reads it into the same
``Refused``/``Asked`` value: one shape on the workflow's side, whoever ran the attempt.
Workflow-safe (no I/O), so the workflow sandbox imports it.
"""

from __future__ import annotations

from temporalio.exceptions import ActivityError, ApplicationError

from harness.domain.outcome import Asked, Refused, Stopped
from harness.temporal import ABORT_ERROR_TYPE


def abort_of(error: ActivityError) -> Stopped | None:
    """The abort an activity failed with, as a value; ``None`` if it failed otherwise.

    Args:
        error: what ``workflow.execute_activity`` raised.

    Returns:
        ``Asked`` for an ask, else ``Refused`` (a history written before ``ask`` existed
        has no such key: not an ask).
    """
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type != ABORT_ERROR_TYPE:
        return None
    details = cause.details[0] if cause.details else None
    if not isinstance(details, dict):
        return None  # not an abort's failure: a failure like any other
    reason = str(details.get("reason", ""))
    point = str(details.get("point", ""))
    executor = str(details.get("executor", ""))
    if details.get("ask") is True:
        timeout = _seconds(details.get("timeout_seconds"))
        return Asked(reason=reason, point=point, executor=executor, timeout_seconds=timeout)
    deliberate = details.get("refusal") is True
    return Refused(reason=reason, point=point, executor=executor, deliberate=deliberate)


def _seconds(value: object) -> float:
    """A timeout from the details; anything not a non-negative number is 0 (no timeout)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    return max(float(value), 0.0)
