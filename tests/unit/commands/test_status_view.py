"""The status view from snapshots built by hand: what runs, what waits, settings, budget."""

from __future__ import annotations

from datetime import UTC, datetime

from commands import register_all
from commands.status_view import render, render_subtask
from harness.domain import (
    BudgetUsage,
    PendingQuestion,
    StepProgress,
    SubtaskSummary,
    TaskStatus,
    TurnProgress,
    duration,
)
from harness.hooks import HookManager
from tests.unit.commands.running import run_command

from .conftest import MODELS, SNAPSHOT

NOW = 1_700_000_000.0


class FixedClock:
    def now(self) -> datetime:
        return datetime.fromtimestamp(NOW, tz=UTC)

    def monotonic(self) -> float:
        return 0.0


BUSY = SNAPSHOT.model_copy(
    update={
        "turn": TurnProgress(
            started_at=NOW - 125,
            steps=(
                StepProgress(title="gather the logs", state="done"),
                StepProgress(title="read <!channel> logs", state="running"),
                StepProgress(title="write the fix"),
            ),
            doing="running calculator",
            model_calls=3,
            tool_calls=1,
        ),
        "queued": 2,
        "last_error": "failed: the model is not answering <@U9|nine> <!here>",
        "pending": (
            PendingQuestion(
                request_id="help-1",
                kind="approval",
                question="Approve shell with {}?",
                asked_at=NOW - 90,
                timeout_seconds=600,
            ),
            PendingQuestion(
                request_id="budget-1",
                kind="budget",
                question="Raise the budget?",
                asked_at=NOW - 3700,
            ),
        ),
        "mid_turn": "interrupt",
        "approvals": "strict",
        "approved_tools": ("echo", "search"),
        "budget": BudgetUsage(
            tokens=8120,
            token_limit=10_000,
            tool_calls=3,
            tool_call_limit=20,
            cost=0.1234,
            cost_limit=5,
        ),
        "subtasks": (
            SubtaskSummary(task_id="T/sub-1", title="read logs", status=TaskStatus.RUNNING),
            SubtaskSummary(task_id="T/sub-2", title="ask", status=TaskStatus.FAILED),
        ),
    }
)


def test_a_busy_task_shows_what_runs_waits_and_what_it_used():
    assert render(BUSY, now=NOW).splitlines() == [
        "*fix the flaky test* — running",
        "model: `offline` · effort: `medium`",
        "people: <@UOWNER> (owner), <@UCOLLAB> (collaborator), <@UWATCH> (watcher)",
        "now: step 2 of 3 “read &lt;!channel&gt; logs” · running calculator · for 2 min 05 s "
        "(3 model calls, 1 tool call)",
        "plan: ✓ gather the logs · ▶ read &lt;!channel&gt; logs · ○ write the fix",
        "waiting for:",
        "• approval: Approve shell with {}? — asked 1 min 30 s ago, times out in 8 min 30 s",
        "• budget: Raise the budget? — asked 1 h 01 min ago, no time limit",
        "queued: 2 messages, answered next",
        "last error: failed: the model is not answering @U9 &lt;!here&gt;",
        "mid-turn: `interrupt` · approvals: `strict` (don't ask again: `echo`, `search`)",
        "budget: tokens 8,120 of 10,000 (81 %) · tool calls 3 of 20 (15 %) · "
        "cost $0.1234 of $5.00 (2 %)",
        "sub-tasks (`/task status sub-N` shows one):",
        "• sub-task 1: read logs — running",
        "• sub-task 2: ask — failed",
    ]


def test_a_question_past_its_timeout_is_timing_out_and_a_waiting_turn_says_so():
    snapshot = BUSY.model_copy(
        update={
            "turn": TurnProgress(started_at=NOW - 5, state="waiting"),
            "pending": (
                PendingQuestion(
                    request_id="h",
                    kind="question",
                    question="which?\nthis one",
                    asked_at=NOW - 700,
                    timeout_seconds=600,
                ),
            ),
        }
    )
    lines = render(snapshot, now=NOW).splitlines()
    assert lines[3] == "now: waiting for an answer · for 5 s (0 model calls, 0 tool calls)"
    assert "• question: which? this one — asked 11 min 40 s ago, timing out now" in lines


def test_an_ended_task_shows_no_now_line_and_an_unpriced_budget_hides_cost():
    ended = SNAPSHOT.model_copy(
        update={"status": TaskStatus.SUCCEEDED, "budget": BudgetUsage(tokens=12_345, tool_calls=7)}
    )
    text = render(ended, now=NOW)
    assert "now:" not in text
    assert "budget: tokens 12,345 (no limit) · tool calls 7 (no limit)" in text.splitlines()
    assert "cost" not in text


def test_a_long_question_is_cut_on_one_line():
    long = BUSY.model_copy(
        update={
            "pending": (
                PendingQuestion(
                    request_id="h", kind="question", question="why " * 100, asked_at=NOW
                ),
            )
        }
    )
    (line,) = [x for x in render(long, now=NOW).splitlines() if x.startswith("• question")]
    assert "…" in line and len(line) < 200


def test_durations():
    assert [duration(s) for s in (0, 59.9, 60, 3599, 3600, 7322, -4)] == [
        "0 s",
        "59 s",
        "1 min 00 s",
        "59 min 59 s",
        "1 h 00 min",
        "2 h 02 min",
        "0 s",
    ]


async def test_the_command_times_with_its_clock(ctx):
    manager = HookManager()
    register_all(manager, models=MODELS, clock=FixedClock())
    result = await run_command(manager, ctx("status", sender="UWATCH", snapshot=BUSY))
    assert "for 2 min 05 s" in result.reply and result.effects == ()


CHILD = SubtaskSummary(
    task_id="T/sub-1",
    title="read logs",
    status=TaskStatus.RUNNING,
    turn=BUSY.turn.model_copy(update={"state": "waiting", "doing": "which env?"}),
    pending=(
        PendingQuestion(
            request_id="help-9", kind="question", question="which env?", asked_at=NOW - 30
        ),
    ),
    usage=BudgetUsage(tokens=120, tool_calls=1),
)


def test_one_sub_task_shows_what_runs_its_plan_its_questions_and_its_usage():
    assert render_subtask(CHILD, now=NOW).splitlines() == [
        "*sub-task 1: read logs* — running",
        "now: step 2 of 3 “read &lt;!channel&gt; logs” · waiting for an answer: which env? · "
        "for 2 min 05 s (3 model calls, 1 tool call)",
        "plan: ✓ gather the logs · ▶ read &lt;!channel&gt; logs · ○ write the fix",
        "waiting for:",
        "• question: which env? — asked 30 s ago, no time limit",
        "used: tokens 120 (no limit) · tool calls 1 (no limit)",
    ]


def test_a_done_sub_task_shows_its_answer_here_and_its_gist_in_its_parents_list():
    done = CHILD.model_copy(
        update={"status": TaskStatus.SUCCEEDED, "answer": "the logs say: " + "disk full " * 20}
    )
    lines = render_subtask(done, now=NOW).splitlines()
    assert lines[0] == "*sub-task 1: read logs* — done"
    assert lines[1].startswith("answer: the logs say: disk full") and "now:" not in lines[1]
    assert lines[2] == "used: tokens 120 (no limit) · tool calls 1 (no limit)"
    parent = render(SNAPSHOT.model_copy(update={"subtasks": (done,)}), now=NOW).splitlines()
    [line] = [x for x in parent if x.startswith("• sub-task 1")]
    assert line.startswith("• sub-task 1: read logs — done: the logs say: disk full")
    assert line.endswith("…") and "T/sub-1" not in line


async def test_the_command_shows_one_sub_task_or_names_the_ones_there_are(ctx):
    manager = HookManager()
    register_all(manager, models=MODELS, clock=FixedClock())
    busy = BUSY.model_copy(update={"subtasks": (CHILD,)})
    one = await run_command(manager, ctx("status", "sub-task 1", sender="UWATCH", snapshot=busy))
    assert one.reply.startswith("*sub-task 1: read logs* — running\nnow: step 2 of 3")
    none = await run_command(manager, ctx("status", "sub-4", sender="UWATCH", snapshot=busy))
    assert none.reply == "this task has no sub-task 4; its sub-tasks: sub-task 1"
    bad = await run_command(manager, ctx("status", "everything", snapshot=busy))
    assert bad.reply.startswith("`everything` names no sub-task")
