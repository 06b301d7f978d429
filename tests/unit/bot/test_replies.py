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
        (
            TaskBusy(task_id="t", reason="limit (10)", in_flight=10),
            "this task is busy with 10 other requests, so `/model` was not applied; "
            "nothing was changed — try again in a moment",
        ),
        (
            TaskBusy(task_id="t", reason="namespace rate limit exceeded"),
            "this task is busy right now, so `/model` was not applied; "
            "nothing was changed — try again in a moment",
        ),
        (TaskUnavailable(task_id="t", reason="connection refused"), replies.UNREACHABLE),
        (
            TaskRejected(task_id="t", reason="task has finished"),
            "this channel's task has ended, so `/model` has nothing to act on; "
            "mention me with what you need to start a new one",
        ),
        (
            TaskRejected(task_id="t", reason="this command is for another task"),
            "the task did not take `/model`: this command is for another task",
        ),
        (TaskNotFound(task_id="t", reason="no such task"), replies.no_task("model")),
        (
            TaskTimedOut(task_id="t", reason="Timeout or cancellation waiting for update"),
            "the task did not answer `/model` in time; it may still be applied — "
            "check `/task status` before trying again",
        ),
    ],
    ids=[
        "busy-in-flight",
        "busy-rate-limit",
        "unreachable",
        "ended",
        "rejected",
        "not-found",
        "timed-out",
    ],
)
def test_each_task_error_has_its_own_reply(error, expected):
    assert replies.for_error("model", error) == expected


def test_commands_are_named_as_they_are_typed():
    assert replies.working("status", "") == "working on `/task status` …"
    assert replies.working("model", "<!channel>") == "working on `/model &lt;!channel&gt;` …"
    assert replies.no_task("invite").startswith(
        "there is no task in this channel yet, so `/task invite` has nothing to act on"
    )
    assert "`/task status`, `/model`, `/effort`, `/task help` work" in replies.task_started()


@pytest.mark.parametrize(
    ("command", "args", "expected"),
    [
        ("/status", "", "`/status` is `/task status` here (Slack keeps `/status` for itself)"),
        (
            "/invite",
            "<@U2> watcher",
            "`/invite` is `/task invite` here (Slack keeps `/invite` for itself)",
        ),
        ("/skill", "load x", "`/skill` is `/task skill` here"),
        (
            "/task",
            "teleport mars",
            "`/task teleport` is not a command here; `/task help` lists them",
        ),
        ("/teleport", "", "`/teleport` is not a command here; `/task help` lists them"),
        (
            "/task",
            "<!here>",
            "`/task &lt;!here&gt;` is not a command here; `/task help` lists them",
        ),
    ],
    ids=[
        "reserved",
        "reserved-with-args",
        "renamed",
        "unknown-under-umbrella",
        "unknown",
        "echo-is-neutral",
    ],
)
def test_what_is_not_a_command_here_points_at_its_new_name_or_the_help(command, args, expected):
    assert replies.not_a_command(command, args) == expected


def test_a_direct_message_is_told_how_to_start_a_task_and_what_it_can_use():
    text = replies.direct_message()
    assert text.startswith("I run tasks in channels, not in direct messages")
    assert "• `/task invite @person watcher|collaborator`" in text
    assert text.endswith("`/task help` works anywhere, here too.")
