"""What a sender reads for each way sending a command can fail."""

from __future__ import annotations

import pytest

from bot import replies
from harness.temporal.errors import (
    TaskBusy,
    TaskNotFound,
    TaskRejected,
    TaskTimedOut,
    TaskUnavailable,
)


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (TaskBusy(task_id="t", reason="limit (10)", in_flight=10),
         "this task is busy with 10 other requests, so `/model` was not applied; "
         "nothing was changed — try again in a moment"),
        (TaskBusy(task_id="t", reason="namespace rate limit exceeded"),
         "this task is busy right now, so `/model` was not applied; "
         "nothing was changed — try again in a moment"),
        (TaskUnavailable(task_id="t", reason="connection refused"), replies.UNREACHABLE),
        (TaskRejected(task_id="t", reason="task has finished"),
         "the task did not take `/model`: task has finished"),
        (TaskNotFound(task_id="t", reason="no such task"), replies.no_task("model")),
        (TaskTimedOut(task_id="t", reason="Timeout or cancellation waiting for update"),
         "the task did not answer `/model` in time; it may still be applied — "
         "check `/status` before trying again"),
    ],
    ids=["busy-in-flight", "busy-rate-limit", "unreachable", "rejected", "not-found",
         "timed-out"],
)  # fmt: skip
def test_each_task_error_has_its_own_reply(error, expected):
    assert replies.for_error("model", error) == expected
