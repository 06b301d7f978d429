"""The status view in words: a task's snapshot as a few lines of Slack mrkdwn worth reading.

What runs now and for how long, the plan's steps, what the task waits for (questions,
approvals, budgets: how long each has waited and when it times out), the queue, the last
error, the task's settings (mid-turn, approvals, budget) and its sub-tasks; or one sub-task as
its parent knows it (:func:`render_subtask`). Pure: the
caller gives the time (``/task status`` reads its clock in the activity), so a snapshot
built by hand renders the same every time. The facts the view cannot work out from the
snapshot come in worded or as values: the budget as :func:`harness.agent.budget.describe`
says it, the workflow's link. The command is :mod:`commands.status` (with
:mod:`commands.status_view`, which hands those in).
"""

from __future__ import annotations

import re
from typing import Final

from harness.domain import (
    FINAL_STATUSES,
    PendingQuestion,
    Role,
    StepProgress,
    SubtaskSummary,
    TaskSnapshot,
    TurnProgress,
    duration,
)
from harness.replies.neutral import neutral
from harness.replies.subtasks import subtask_label, subtask_state
from harness.replies.umbrella import invocation

_ROLE_ORDER: Final = {Role.OWNER: 0, Role.COLLABORATOR: 1, Role.WATCHER: 2, Role.NONE: 3}
_MARK: Final = {"pending": "○", "running": "▶", "done": "✓", "failed": "✗", "skipped": "↷"}
_MENTION: Final = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")
QUESTION_CHARS: Final = 120
"""A pending question is cut here: the status is a glance, the thread has it whole."""
ANSWER_CHARS: Final = 600
"""A sub-task's answer is cut here in its own status (in its parent's list, at 80)."""
ONE_SUBTASK: Final = f"{invocation('status')} sub-N"
"""How the status view says to show one sub-task."""


def clip(text: str, limit: int = QUESTION_CHARS) -> str:
    """``text`` on one line, shown as typed (:func:`neutral`), cut at ``limit`` characters.

    A mention in it reads ``@U123`` (the status is a glance: it pings nobody, and shows no
    escaped ``&lt;@U123&gt;``).
    """
    line = _MENTION.sub(r"@\1", " ".join(text.split()))
    return neutral(line if len(line) <= limit else line[: limit - 1] + "…")


def state_word(snapshot: TaskSnapshot) -> str:
    """The task's state as the header says it, from what ``now:`` reads too: an ended task's
    status; ``waiting`` on a person, ``running`` a turn, else ``idle`` (nothing runs: a task
    that is ``running`` between messages, or was left ``waiting`` by an old run's stop)."""
    turn = snapshot.turn
    if snapshot.status in FINAL_STATUSES:
        return str(snapshot.status)
    if turn is None:
        return "idle"
    return "waiting" if turn.state == "waiting" else "running"


def now_line(snapshot: TaskSnapshot, now: float) -> str | None:
    """What runs now: the current step, what it does, and for how long (``None``: ended)."""
    return turn_line(snapshot.turn, now, ended=snapshot.status in FINAL_STATUSES)


def turn_line(turn: TurnProgress | None, now: float, *, ended: bool = False) -> str | None:
    """``now: …`` of a task's or a sub-task's turn (``None``: the task has ended)."""
    if turn is None:
        return None if ended else "now: idle, waiting for a message"
    parts = []
    current = _current_step(turn)
    if current is not None:
        index, step = current
        parts.append(f"step {index + 1} of {len(turn.steps)} “{clip(step.title, 60)}”")
    doing = turn.doing or "thinking"
    if turn.state == "waiting":  # ``doing`` is then what it waits on (the question)
        doing = f"waiting for an answer: {turn.doing}" if turn.doing else "waiting for an answer"
    parts.append(clip(doing, 80))
    if turn.started_at:
        parts.append(f"for {duration(now - turn.started_at)}")
    calls = (
        f"{turn.model_calls} model call{_s(turn.model_calls)}, "
        f"{turn.tool_calls} tool call{_s(turn.tool_calls)}"
    )
    return f"now: {' · '.join(parts)} ({calls})"


def plan_line(turn: TurnProgress | None) -> str | None:
    """``plan: ✓ gather · ▶ read the logs · ○ write the fix``, when the turn has a plan."""
    if turn is None or not turn.steps:
        return None
    return "plan: " + " · ".join(f"{_MARK[s.state]} {clip(s.title, 40)}" for s in turn.steps)


def pending_lines(pending: tuple[PendingQuestion, ...], now: float) -> list[str]:
    """``waiting for:`` and one line per open question: its kind, how long, when it times out."""
    if not pending:
        return []
    lines = ["waiting for:"]
    for question in pending:
        waited = f"asked {duration(now - question.asked_at)} ago" if question.asked_at else "asked"
        if question.timeout_seconds <= 0:
            limit = "no time limit"
        else:
            left = question.asked_at + question.timeout_seconds - now
            limit = f"times out in {duration(left)}" if left > 0 else "timing out now"
        who = f"{clip(question.subtask, 60)} · " if question.subtask else ""  # issue 26
        lines.append(f"• {who}{question.kind}: {clip(question.question)} — {waited}, {limit}")
    return lines


def settings_line(snapshot: TaskSnapshot) -> str:
    """``mid-turn: `steer` · approvals: `safe` (don't ask again: `shell`)``; approvals the task
    never set are the worker's (the hooks file's ``[approvals]`` default)."""
    approvals = f"`{snapshot.approvals}`" if snapshot.approvals else "the worker's default"
    line = f"mid-turn: `{snapshot.mid_turn}` · approvals: {approvals}"
    if snapshot.approved_tools:
        tools = ", ".join(f"`{clip(t, 60)}`" for t in snapshot.approved_tools)
        line += f" (don't ask again: {tools})"
    return line


def render(snapshot: TaskSnapshot, *, now: float = 0.0, budget: str = "", link: str = "") -> str:
    """The snapshot as Slack mrkdwn; with ``link``, a link to its workflow last.

    Args:
        snapshot: the task as its workflow attached it to the command.
        now: the time (epoch seconds) elapsed times and timeouts are measured to.
        budget: the task's budget, described (``tokens 8,120 of 10,000 (81 %)``).
        link: its workflow in the Temporal Web UI (``""``: no link).
    """
    title = neutral(snapshot.title or snapshot.ref.task_id)
    people = sorted(snapshot.participants, key=lambda p: (_ROLE_ORDER[p.role], p.user_id))
    lines = [
        f"*{title}* — {state_word(snapshot)}",
        f"model: `{snapshot.model or '(default)'}` · effort: `{snapshot.effort}`",
        "people: " + (", ".join(f"<@{p.user_id}> ({p.role})" for p in people) or "none"),
    ]
    lines += [line for line in (now_line(snapshot, now), plan_line(snapshot.turn)) if line]
    lines += pending_lines(snapshot.pending, now)
    if snapshot.queued:
        lines.append(f"queued: {snapshot.queued} message{_s(snapshot.queued)}, answered next")
    if snapshot.last_error:
        lines.append(f"last error: {clip(snapshot.last_error, 300)}")
    lines += [settings_line(snapshot), f"budget: {budget}"]
    if snapshot.subtasks:
        lines.append(f"sub-tasks (`{ONE_SUBTASK}` shows one):")
        lines += [
            f"• {_subtask(s.task_id)}{neutral(s.title)} — {_state(s, 80)}"
            for s in snapshot.subtasks
        ]
    else:
        lines.append("sub-tasks: none")
    lines += _link(snapshot.ref.task_id, link)
    return "\n".join(lines)


def render_subtask(
    subtask: SubtaskSummary, *, now: float = 0.0, used: str = "", link: str = ""
) -> str:
    """One sub-task as its parent knows it (``/task status sub-1``): its state, what runs, its
    plan, its open questions, its answer once done and what it ``used`` (described; issue 26),
    and with ``link`` its workflow."""
    head = f"*{_subtask(subtask.task_id)}{neutral(subtask.title)}* — {_state(subtask)}"
    lines = [head]
    if subtask.status not in FINAL_STATUSES:
        if subtask.turn is not None:  # none reported yet: it is starting, not idle
            lines += [turn_line(subtask.turn, now) or "", *filter(None, [plan_line(subtask.turn)])]
        lines += pending_lines(subtask.pending, now)
    if subtask.answer:
        lines.append(f"answer: {clip(subtask.answer, ANSWER_CHARS)}")
    lines.append(f"used: {used}")
    lines += _link(subtask.task_id, link)
    return "\n".join(lines)


def _state(subtask: SubtaskSummary, gist: int = 0) -> str:
    """``running``, ``cancelled``, ``done``; with ``gist``, a done one's answer cut there."""
    state = subtask_state(subtask.status)
    return f"{state}: {clip(subtask.answer, gist)}" if gist and subtask.answer else state


def _link(task_id: str, url: str) -> list[str]:
    if not url:
        return []
    return [f"workflow: <{url}|{neutral(task_id)}> (Temporal UI)"]


def _subtask(task_id: str) -> str:
    """``sub-task 1: ``, as the thread calls it (issue 26); ``""`` for an id named otherwise."""
    label = subtask_label(task_id)
    return f"{label}: " if label else ""


def _current_step(turn: TurnProgress) -> tuple[int, StepProgress] | None:
    running = [(i, s) for i, s in enumerate(turn.steps) if s.state == "running"]
    return running[0] if running else None


def _s(count: int) -> str:
    return "" if count == 1 else "s"
