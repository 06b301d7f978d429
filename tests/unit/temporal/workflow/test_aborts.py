"""An older worker's HookAbort failure (temporal.aborts) reads as today's Refused/Asked value."""

from __future__ import annotations

import temporalio.api.failure.v1
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from harness.domain.outcome import Asked, Refused, stopped
from harness.hooks import HookAbort
from harness.temporal import ABORT_ERROR_TYPE
from harness.temporal.workflow.aborts import abort_of


def through_history(error: ApplicationError) -> ActivityError:
    """``error`` as the workflow sees it: encoded as a failure, decoded, under an ActivityError."""
    converter = pydantic_data_converter
    failure = temporalio.api.failure.v1.Failure()
    converter.failure_converter.to_failure(error, converter.payload_converter, failure)
    decoded = converter.failure_converter.from_failure(failure, converter.payload_converter)
    outer = ActivityError(
        "activity failed",
        scheduled_event_id=1,
        started_event_id=2,
        identity="w",
        activity_type="tool-invoked-v1",
        activity_id="1",
        retry_state=RetryState.NON_RETRYABLE_FAILURE,
    )
    outer.__cause__ = decoded
    return outer


def old_worker_failure(abort: HookAbort) -> ApplicationError:
    """The failure a worker from before issue 25 sent for ``abort`` (what histories hold)."""
    details = {
        "reason": abort.reason,
        "refusal": abort.refusal,
        "point": abort.point or "",
        "executor": abort.executor or "",
        "ask": abort.ask,
        "timeout_seconds": abort.timeout_seconds,
    }
    return ApplicationError(str(abort), details, type=ABORT_ERROR_TYPE, non_retryable=True)


def test_an_older_workers_ask_reads_as_an_ask_with_its_timeout():
    sent = HookAbort(
        "echo needs a person's approval (approvals strict)",
        ask=True,
        timeout_seconds=120,
        point="tool.invoked.pre",
        executor="approvals",
    )
    back = abort_of(through_history(old_worker_failure(sent)))
    assert back == Asked(
        reason=sent.reason, point="tool.invoked.pre", executor="approvals", timeout_seconds=120
    )
    assert back == stopped(sent)  # the value today's activity returns for the same abort


def test_a_plain_refusal_is_not_an_ask():
    back = abort_of(through_history(old_worker_failure(HookAbort("no", refusal=True))))
    assert back == Refused(reason="no", deliberate=True)


def test_details_written_before_ask_existed_read_as_not_ask():
    """A running task's history holds aborts without the ask keys: they stay refusals."""
    old = {
        "reason": "denied by policy",
        "refusal": True,
        "point": "tool.invoked.pre",
        "executor": "policy",
    }
    error = ApplicationError("refused", old, type=ABORT_ERROR_TYPE, non_retryable=True)
    back = abort_of(through_history(error))
    assert back == Refused(
        reason="denied by policy", point="tool.invoked.pre", executor="policy", deliberate=True
    )


def test_a_malformed_timeout_is_no_timeout():
    details = {"reason": "r", "refusal": True, "ask": True, "timeout_seconds": "soon"}
    error = ApplicationError("asked", details, type=ABORT_ERROR_TYPE, non_retryable=True)
    back = abort_of(through_history(error))
    assert isinstance(back, Asked) and back.timeout_seconds == 0.0


def test_other_failures_are_no_abort():
    assert abort_of(through_history(ApplicationError("boom", type="KeyError"))) is None
    odd = ApplicationError("x", "not a dict", type=ABORT_ERROR_TYPE)
    assert abort_of(through_history(odd)) is None


def test_an_ask_pickles_as_an_ask():
    import pickle

    back = pickle.loads(pickle.dumps(HookAbort("hold", ask=True, timeout_seconds=5)))
    assert (back.ask, back.refusal, back.timeout_seconds) == (True, True, 5.0)
