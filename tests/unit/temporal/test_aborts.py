"""A HookAbort across the activity boundary (temporal.aborts): ask survives, old details read."""

from __future__ import annotations

import temporalio.api.failure.v1
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.exceptions import ActivityError, ApplicationError, RetryState

from harness.hooks import HookAbort
from harness.temporal import ABORT_ERROR_TYPE
from harness.temporal.aborts import abort_failure, abort_of


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


def test_an_ask_crosses_the_boundary_with_its_timeout():
    sent = HookAbort(
        "echo needs a person's approval (approvals strict)",
        ask=True,
        timeout_seconds=120,
        point="tool.invoked.pre",
        executor="approvals",
    )
    back = abort_of(through_history(abort_failure(sent)))
    assert back is not None
    assert (back.ask, back.refusal, back.timeout_seconds) == (True, True, 120.0)
    assert (back.reason, back.point, back.executor) == (sent.reason, sent.point, sent.executor)
    assert str(back).startswith("asked at tool.invoked.pre by approvals:")


def test_a_plain_refusal_is_not_an_ask():
    back = abort_of(through_history(abort_failure(HookAbort("no", refusal=True))))
    assert back is not None and back.refusal is True and back.ask is False
    assert back.timeout_seconds == 0.0


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
    assert back is not None
    assert (back.reason, back.refusal, back.ask, back.timeout_seconds) == (
        "denied by policy",
        True,
        False,
        0.0,
    )


def test_a_malformed_timeout_is_no_timeout():
    details = {"reason": "r", "refusal": True, "ask": True, "timeout_seconds": "soon"}
    error = ApplicationError("asked", details, type=ABORT_ERROR_TYPE, non_retryable=True)
    back = abort_of(through_history(error))
    assert back is not None and back.ask is True and back.timeout_seconds == 0.0


def test_an_ask_pickles_as_an_ask():
    import pickle

    back = pickle.loads(pickle.dumps(HookAbort("hold", ask=True, timeout_seconds=5)))
    assert (back.ask, back.refusal, back.timeout_seconds) == (True, True, 5.0)
