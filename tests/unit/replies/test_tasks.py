"""A stopped turn's summary in the room (issue 25): the lines the workflow used to word."""

from __future__ import annotations

from harness import replies
from harness.domain import StepProgress, TurnProgress

PLAN = (
    StepProgress(title="look around", state="done"),
    StepProgress(title="write it up", state="running"),
    StepProgress(title="send it", state="pending"),
    StepProgress(title="tidy", state="skipped"),
)


def test_a_stopped_turn_says_who_why_what_was_done_and_what_was_not():
    progress = TurnProgress(steps=PLAN, doing="running calculator", model_calls=2, tool_calls=1)
    said = replies.turn_stopped(
        progress, by="U1", reason="the task was cancelled", after="12 s", cut_off=False, waits=True
    )
    assert said.splitlines() == [
        "stopped by <@U1> (the task was cancelled) after 12 s.",
        "done: look around",
        "not done: write it up; send it; tidy",
        "last: running calculator",
        "2 model calls, 1 tool call. The task waits for your next message.",
    ]


def test_a_turn_that_never_started_nor_waits_says_only_its_stop_and_its_calls():
    progress = TurnProgress(doing=replies.STARTING, model_calls=1)
    said = replies.turn_stopped(progress, by="", reason="", after="1 s", cut_off=False, waits=False)
    assert said.splitlines() == ["stopped after 1 s.", "1 model call, 0 tool calls."]


def test_a_turn_cut_off_by_its_tasks_end_says_so_and_what_it_waited_on():
    progress = TurnProgress(doing="which file?", state="waiting")
    said = replies.turn_stopped(
        progress, by="", reason="its parent ended", after="3 s", cut_off=True, waits=False
    )
    assert said.splitlines() == [
        replies.ended_first("its parent ended", "3 s"),
        f"last: {replies.waiting_on('which file?')}",
        "0 model calls, 0 tool calls.",
    ]


def test_the_threads_status_line_names_the_call_running_or_says_working():
    assert replies.thread_status("running", replies.thinking("gpt-5")) == "is thinking with gpt-5…"
    assert replies.thread_status("running", replies.running("calc")) == "is running calc…"
    assert replies.thread_status("running", replies.planned(3)) == "is working…"
    assert replies.thread_status("waiting", replies.running("calc")) == "is waiting for an answer…"


def test_a_stopped_sub_tasks_summary_is_its_one_end_line():
    progress = TurnProgress(steps=PLAN[:2], model_calls=1)
    said = replies.turn_stopped(
        progress, by="U1", reason="", after="2 s", cut_off=False, waits=False, ended=True
    )
    assert said.splitlines() == [
        "stopped by <@U1> after 2 s; it has ended without an answer.",
        "done: look around",
        "not done: write it up",
        "1 model call, 0 tool calls.",
    ]
