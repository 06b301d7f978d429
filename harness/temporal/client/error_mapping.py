"""Temporal's errors as the harness's, at the client: the one boundary for them (STYLE rule 8).

:func:`mapped` wraps every call :class:`~harness.temporal.client.HarnessClient` makes. A
task's own refusal and failure arrive as ``ApplicationError`` s of the workflow: a
``TaskGaveUp`` one is read from its details (:class:`~harness.temporal.models.GaveUp`)
into the reason a person reads (:mod:`harness.replies`), the technical message
kept as the error's ``detail`` for logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from typing import Final

from temporalio.client import (
    WorkflowFailureError,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from harness import replies
from harness.domain.outcome import Failed
from harness.replies.umbrella import invocation
from harness.temporal import GAVE_UP_ERROR_TYPE, REFUSED_ERROR_TYPE
from harness.temporal.client import routing
from harness.temporal.errors import (
    TaskBusy,
    TaskNotFound,
    TaskRefused,
    TaskRejected,
    TaskTimedOut,
    TaskUnavailable,
)
from harness.temporal.models import GaveUp


@contextlib.asynccontextmanager
async def mapped(task_id: str) -> AsyncIterator[None]:
    """Turn Temporal's exceptions into the harness's (STYLE.md rule 8: one boundary)."""
    try:
        yield
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        if isinstance(cause, ApplicationError) and cause.type == REFUSED_ERROR_TYPE:
            raise TaskRefused(task_id=task_id, reason=cause.message) from error
        raise TaskRejected(task_id=task_id, reason=_message(cause)) from error
    except WorkflowUpdateRPCTimeoutOrCancelledError as error:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            # The SDK turns our caller's cancellation into this error; give it back,
            # or asyncio.timeout/wait_for around us never see their cancellation.
            raise asyncio.CancelledError() from error
        raise TaskTimedOut(task_id=task_id, reason=TIMED_OUT) from error
    except WorkflowFailureError as error:
        raise TaskRejected(task_id=task_id, reason=_message(error.cause)) from error
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND and "completed" in error.message:
            # Temporal answers an update to a closed workflow this way.
            raise TaskRejected(task_id=task_id, reason=routing.FINISHED) from error
        if error.status == RPCStatusCode.NOT_FOUND:
            raise TaskNotFound(task_id=task_id, reason="no such task") from error
        if error.status == RPCStatusCode.RESOURCE_EXHAUSTED:
            # Still exhausted after the SDK's own retries (~10 s): the server answered.
            raise TaskBusy(
                task_id=task_id, reason=error.message, in_flight=_in_flight(error.message)
            ) from error
        if error.status == RPCStatusCode.DEADLINE_EXCEEDED or (
            error.status == RPCStatusCode.UNAVAILABLE and not _never_sent(error.message)
        ):
            # The server went away mid-call: it may have taken the request.
            raise TaskTimedOut(task_id=task_id, reason=TIMED_OUT) from error
        raise TaskUnavailable(task_id=task_id, reason=error.message) from error


TIMED_OUT: Final = (
    "the task did not answer in time; your request may still be applied — "
    f"check {invocation('status')} before trying again"
)
"""The reason of every :class:`TaskTimedOut`: what happened and what to do before retrying."""

# Temporal's text for history.maxInFlightUpdates, e.g. "... has been reached (10)".
_IN_FLIGHT = re.compile(r"in-flight updates has been reached \((\d+)\)")


def _never_sent(message: str) -> bool:
    """Whether an ``UNAVAILABLE`` says no connection was made, so nothing reached Temporal."""
    text = message.lower()
    return "connect" in text or "refused" in text or "dns" in text


def _in_flight(message: str) -> int | None:
    """The in-flight count in Temporal's message, or ``None`` for other limits (rate limits)."""
    match = _IN_FLIGHT.search(message)
    return int(match.group(1)) if match else None


def _message(cause: BaseException) -> str:
    return cause.message if isinstance(cause, ApplicationError) else str(cause)


def _reason(cause: BaseException) -> str:
    """What a person reads of an update the task failed: a gave-up in words, never its text."""
    if not isinstance(cause, ApplicationError):
        return replies.SOMETHING_WRONG
    if cause.type != GAVE_UP_ERROR_TYPE or not cause.details:
        return cause.message  # the task's own sentence (a validator's, an effect's)
    gave_up = GaveUp.model_validate(cause.details[0])
    if gave_up.abort_point or gave_up.abort_reason:
        return gave_up.abort_reason
    return replies.failure(
        Failed(
            operation=gave_up.operation,
            attempt=gave_up.attempt,
            error_type=gave_up.error_type,
            user_message=gave_up.user_message,
        )
    )
