"""The progress message of one turn, rendered: text, blocks with a Stop button, stream chunks.

Pure functions of a :class:`~harness.domain.TurnProgress` (and the time now), importing only
:mod:`harness.domain`, the reply module (a sub-task's label), Slack's limits
(:mod:`harness.channels.slack_limits`: the plan is a window that fits a section) and the
standard library, so the task workflow renders the placeholder it posts at a turn's start
with the same code the worker's
:class:`~harness.channels.progress_reporter.ProgressReporter` uses for every later update.
The Stop button's action id (:data:`STOP_ACTION`, its value the task id) is the contract
between this message and the bot's click handler (:mod:`bot.actions`). Sending is
:mod:`harness.channels.slack`'s; deciding what changed is the reporter's.
"""

from __future__ import annotations

import json
from typing import Any, Final

from harness import replies
from harness.channels.slack_limits import MAX_TEXT_OBJECT
from harness.domain import ChannelMessage, StepProgress, TurnProgress, duration
from harness.domain.progress import PROGRESS_ENTITY, StepState, TurnState

__all__ = [
    "MAX_PLAN_CHARS",
    "PROGRESS_BLOCK",
    "STOP_ACTION",
    "headline",
    "plan_text",
    "progress_chunks",
    "progress_message",
    "read_progress",
]

STOP_ACTION: Final = "task:stop"
"""Action id of the Stop button; its ``value`` is the task id. The bot runs ``stop`` as the
clicker."""

PROGRESS_BLOCK: Final = "progress"
"""``block_id`` of a progress message's first block: how a reader (``bot.say``) tells one apart."""

MAX_STEPS_SHOWN: Final = 15
"""Steps listed one per line, a window around the current one; the rest are summarised."""
MAX_STREAMED_STEPS: Final = 20
"""Steps sent as a stream's task updates (Slack keeps each ``id`` it was sent: no window)."""
STEPS_BEFORE: Final = 2
"""Finished steps kept in the window before the current one, for context."""
MAX_PLAN_CHARS: Final = MAX_TEXT_OBJECT
"""Slack refuses a section whose text is longer (issue 26: a 40-step plan froze the message)."""
MAX_TITLE: Final = 120
MAX_NOTE: Final = 160

FINAL_STATES: Final[frozenset[TurnState]] = frozenset({"answered", "failed", "stopped"})

_MARKS: Final[dict[StepState, str]] = {
    "pending": ":white_circle:",
    "running": ":hourglass_flowing_sand:",
    "done": ":white_check_mark:",
    "failed": ":x:",
    "skipped": ":fast_forward:",
}
_HEADS: Final = replies.TURN_STATES
_CHUNK_STATUS: Final[dict[StepState, str]] = {
    "pending": "pending",
    "running": "in_progress",
    "done": "complete",
    "failed": "error",
    "skipped": "complete",
}
_ESCAPES: Final = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def read_progress(entities: Any) -> TurnProgress | None:  # noqa: ANN401  # any mapping, any value
    """The turn's progress a context carries (``entities[PROGRESS_ENTITY]``), or ``None``.

    A missing or unreadable entry is ``None``: a context without a turn shows nothing.
    """
    raw = entities.get(PROGRESS_ENTITY) if hasattr(entities, "get") else None
    if not isinstance(raw, str) or not raw:
        return None
    try:
        return TurnProgress.model_validate(json.loads(raw))
    except ValueError:  # pydantic's ValidationError is a ValueError, and so is bad JSON
        return None


def _plain(text: str, limit: int) -> str:
    """Model- or person-written ``text`` as typed (no mentions), on one line, cut at ``limit``."""
    line = " ".join(text.split())
    line = line if len(line) <= limit else line[: limit - 1] + "…"
    return line.translate(_ESCAPES)


def _elapsed(progress: TurnProgress, now: float) -> str:
    return duration(now - progress.started_at) if progress.started_at else duration(0)


def headline(progress: TurnProgress, *, now: float) -> str:
    """One line: the state, what runs now, the plan's position and the time taken.

    ``working: running calculator · step 2 of 3 · 14 s``; ``done · 3 of 3 steps · 1 min 02 s``.
    """
    parts = [_HEADS[progress.state]]
    if progress.doing and progress.state not in FINAL_STATES:
        parts[0] += f": {_plain(progress.doing, MAX_TITLE)}"
    if progress.steps:
        finished = sum(s.state in ("done", "skipped") for s in progress.steps)
        running = next((i for i, s in enumerate(progress.steps, 1) if s.state == "running"), 0)
        total = len(progress.steps)
        parts.append(
            replies.step_position(running, total)
            if running and progress.state not in FINAL_STATES
            else replies.steps_done(finished, total)
        )
    parts.append(_elapsed(progress, now))
    return " · ".join(parts)


def _step_line(index: int, step: StepProgress) -> str:
    note = f" — {_plain(step.note, MAX_NOTE)}" if step.note else ""
    return f"{_MARKS[step.state]} {index}. {_plain(step.title, MAX_TITLE)}{note}"


def _focus(steps: tuple[StepProgress, ...]) -> int:
    """The step a reader looks for: the running one, else the first not finished, else the last."""
    for wanted in (("running",), ("failed", "pending")):
        found = next((i for i, s in enumerate(steps) if s.state in wanted), None)
        if found is not None:
            return found
    return len(steps) - 1


def _summary(steps: tuple[StepProgress, ...], first: int) -> str:
    """One line for steps ``first``.. of a plan: ``1-17: 16 done · 1 skipped``."""
    counts: dict[StepState, int] = {}
    for step in steps:
        counts[step.state] = counts.get(step.state, 0) + 1
    span = f"{first}" if len(steps) == 1 else f"{first}-{first + len(steps) - 1}"
    said = " · ".join(f"{n} {state}" for state, n in counts.items())
    mark = _MARKS["failed" if "failed" in counts else "done"]
    return f"{mark} {span}: {said}"


def plan_text(steps: tuple[StepProgress, ...]) -> str:
    """The plan section: a window of steps around the current one, the rest summarised.

    Steps before the window are one line of counts, steps after it ``… and N more``; the
    window shrinks (away from the current step) until the text fits Slack's section
    (:data:`MAX_PLAN_CHARS`), so a plan of any length stays readable and is never refused.
    """
    focus, total = _focus(steps), len(steps)
    start = max(0, min(focus - STEPS_BEFORE, total - MAX_STEPS_SHOWN))
    end = min(total, start + MAX_STEPS_SHOWN)

    def text() -> str:
        lines = [_summary(steps[:start], 1)] if start else []
        lines += [_step_line(i, steps[i - 1]) for i in range(start + 1, end + 1)]
        if end < total:
            lines.append(replies.more_steps(total - end))
        return "\n".join(lines)

    while len(shown := text()) > MAX_PLAN_CHARS and end - start > 1:
        if end - 1 > focus:
            end -= 1
        else:
            start += 1
    return shown if len(shown) <= MAX_PLAN_CHARS else shown[: MAX_PLAN_CHARS - 1] + "…"


def _counts(progress: TurnProgress) -> str:
    return replies.calls(progress.model_calls, progress.tool_calls)


def progress_message(
    progress: TurnProgress, *, task_id: str, now: float | None = None
) -> ChannelMessage:
    """The progress message of ``progress``: where it goes, its text and its blocks.

    While the turn runs or waits it ends with a Stop button (:data:`STOP_ACTION`, value
    ``task_id``); a finished turn's message has none. The text (what notifications and
    ``bot.say`` show) is the headline alone.

    Args:
        progress: the turn as the workflow (and the latest event) knows it.
        task_id: the task the Stop button stops.
        now: epoch seconds for the elapsed time; ``progress.started_at`` when omitted
            (the workflow passes ``workflow.now()``).
    """
    at = progress.started_at if now is None else now
    head = headline(progress, now=at)
    if label := replies.subtask_label(task_id):  # a sub-task's message says whose it is (issue 26)
        head = f"{label} · {head}"
    mark = {"answered": ":white_check_mark:", "failed": ":x:", "stopped": ":octagonal_sign:"}
    text = f"{mark.get(progress.state, ':hourglass_flowing_sand:')} {head}"
    blocks: list[dict[str, Any]] = [
        {"type": "section", "block_id": PROGRESS_BLOCK, "text": {"type": "mrkdwn", "text": text}}
    ]
    if progress.steps:
        blocks.append(
            {
                "type": "section",
                "block_id": f"{PROGRESS_BLOCK}-plan",
                "text": {"type": "mrkdwn", "text": plan_text(progress.steps)},
            }
        )
    blocks.append(
        {
            "type": "context",
            "block_id": f"{PROGRESS_BLOCK}-counts",
            "elements": [{"type": "mrkdwn", "text": _counts(progress)}],
        }
    )
    if progress.state not in FINAL_STATES:
        blocks.append(
            {
                "type": "actions",
                "block_id": f"{PROGRESS_BLOCK}-stop",
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": replies.STOP_BUTTON},
                        "style": "danger",
                        "action_id": STOP_ACTION,
                        "value": task_id[:2000],
                    }
                ],
            }
        )
    return ChannelMessage(
        channel=progress.channel,
        thread=progress.thread,
        text=text,
        ts=progress.message_ts,
        blocks=tuple(blocks),
    )


def progress_chunks(progress: TurnProgress, *, now: float) -> tuple[dict[str, Any], ...]:
    """Slack's streaming chunks for ``progress``: one ``task_update`` per plan step.

    A turn without a plan is one task, titled with what runs now. A task update with the
    same ``id`` replaces the earlier one, so every append sends the whole plan.
    """
    if progress.steps:
        return tuple(
            {
                "type": "task_update",
                "id": f"step-{i}",
                "title": _plain(s.title, MAX_TITLE),
                "status": _CHUNK_STATUS[s.state],
                **({"output": _plain(s.note, MAX_NOTE)} if s.note else {}),
                **({"details": "skipped"} if s.state == "skipped" else {}),
            }
            for i, s in enumerate(progress.steps[:MAX_STREAMED_STEPS], 1)
        )
    status = {"answered": "complete", "failed": "error", "stopped": "error"}
    return (
        {
            "type": "task_update",
            "id": "turn",
            "title": headline(progress, now=now),
            "status": status.get(progress.state, "in_progress"),
        },
    )
