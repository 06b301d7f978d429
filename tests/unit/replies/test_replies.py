"""Issue 26's sentences in the one reply module: no id, no class name, one sentence each."""

from __future__ import annotations

from harness import replies
from harness.domain.outcome import Failed
from harness.temporal.errors import MessagesMissing

TASK = "task/T1/C1"


def test_a_tasks_end_names_neither_its_id_nor_its_sub_tasks():
    done = f"{TASK} succeeded: done; cancelled 1 running sub-task(s): {TASK}/sub-2"
    assert replies.task_ended(done, subtask=False, task_id=TASK) == (
        "This task has ended: done; cancelled 1 running sub-task(s): sub-task 2. "
        "Mention me to start a new one here."
    )
    ended = replies.task_ended("all good", subtask=False, task_id=TASK)
    assert ended.startswith("This task has ended: all good.")
    assert replies.task_ended(f"{TASK}/sub-1 done", subtask=True, task_id=f"{TASK}/sub-1") == (
        "This sub-task has ended: done."
    )


def test_a_tasks_end_says_its_status_once_in_words():
    def said(done: str) -> str:
        text = replies.task_ended(f"{TASK} {done}", subtask=False, task_id=TASK)
        return text.removesuffix(" Mention me to start a new one here.")

    assert said("succeeded: all done") == "This task has ended: all done."
    assert said("succeeded: finished by <@U1>") == "This task has ended: finished by <@U1>."
    assert said("succeeded") == "This task is done."
    assert said("cancelled") == "This task was cancelled."
    assert said("cancelled: cancelled by <@U1>") == "This task has ended: cancelled by <@U1>."
    assert said("cancelled: wrong channel") == "This task was cancelled: wrong channel."
    assert said("failed: the model gave up") == "This task has failed: the model gave up."
    assert said("archived by a hook") == "This task has ended: archived by a hook."


def test_a_hook_service_retried_is_said_as_such_and_a_model_as_before():
    down = Failed(
        operation="tool.invoked",
        error_type="HookTransportError",
        error_message="POST http://127.0.0.1:9/rpc: Connect call failed",
        service="policy-gate",
    )
    assert replies.service_down(down)
    assert replies.retrying(down, 2, 4) == (
        "the hook service `policy-gate` could not be reached; retrying, 2 of 4"
    )
    model = Failed(operation="llm.invoked", error_type="ModelUnavailable", user_message="x")
    assert not replies.service_down(model)
    assert replies.retrying(model, 2, 4) == "the model is not answering: x; retrying, 2 of 4"


def test_messages_the_store_lost_are_not_said_to_be_the_model_not_answering():
    lost = Failed(
        operation="llm.invoked",
        error_type=MessagesMissing.__name__,
        error_message="2 of the 5 messages of run-1 sent by reference are not in the store",
        retryable=True,
    )
    said = replies.retrying(lost, 2, 4)
    assert said.startswith("the thread's earlier messages could not be read back from storage")
    assert said.endswith("2 of 4") and "model" not in said and "run-1" not in said


def test_a_text_too_long_for_slack_is_cut_at_a_line_and_says_how_much_is_left():
    text = "\n".join(f"{n}. a line of the answer" for n in range(1, 3001))
    cut = replies.fitted(text, 40_000)
    assert len(text) > 40_000 >= len(cut)
    kept, note = cut.rsplit("\n", 1)
    assert text.startswith(kept + "\n")
    left = len(text) - len(kept)
    assert note == f"… ({left:,} more characters do not fit in one Slack message)"
    assert replies.fitted("short", 40_000) == "short"


def test_a_parents_end_says_which_cut_off_sub_tasks_ran_and_which_waited_on_a_person():
    assert (
        replies.cancelled_subtasks(("sub-task 1",)) == "cancelled 1 running sub-task (sub-task 1)"
    )
    assert replies.cancelled_subtasks((), ("sub-task 2",)) == (
        "cancelled 1 sub-task waiting for an answer (sub-task 2)"
    )
    assert replies.cancelled_subtasks(("sub-task 1", "sub-task 3"), ("sub-task 2",)) == (
        "cancelled 2 running sub-tasks (sub-task 1, sub-task 3) and 1 sub-task waiting for an "
        "answer (sub-task 2)"
    )


def test_a_stopped_sub_tasks_summary_says_it_ended_in_its_first_line():
    assert replies.stopped_first("U1", "", "3 s") == "stopped by <@U1> after 3 s."
    assert replies.stopped_first("", "over budget", "1 s", ended=True) == (
        "stopped (over budget) after 1 s; it has ended without an answer."
    )
