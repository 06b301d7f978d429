"""A turn's progress message in words: its state, what it is doing, where the plan stands,
what it has called, and the thread's status line while it runs.

The layout (blocks, the plan's window, the Stop button's action) is
:mod:`harness.channels.progress`'s, and which operation moves the turn on is
:mod:`harness.channels.progress_state`'s; the words they show are here. What a turn is
doing is kept in its progress (workflow state), so each phrase here keeps its wording.
"""

from __future__ import annotations

from typing import Final

from harness.domain.progress import TurnState

__all__ = [
    "GOING_ON",
    "STARTING",
    "STOP_BUTTON",
    "THOUGHT",
    "TURN_STATES",
    "calls",
    "more_steps",
    "on_step",
    "planned",
    "ran",
    "running",
    "step_position",
    "steps_done",
    "thinking",
    "thread_status",
]


TURN_STATES: Final[dict[TurnState, str]] = {
    "running": "working",
    "waiting": "waiting for an answer",
    "answered": "done",
    "failed": "failed",
    "stopped": "stopped",
}
"""How a progress message's headline starts, by the turn's state."""

STOP_BUTTON: Final = "Stop"
"""The label of the button that stops the turn."""


STARTING: Final = "starting"
"""What a turn is doing before its first call (a stop's summary says nothing of it)."""

THOUGHT: Final = "thought"
"""What a turn did last when a model call came back."""

GOING_ON: Final = "going on"
"""What a turn does once the question it waited on is answered."""


def thinking(model: str) -> str:
    """A model call running: ``thinking with gpt-5``."""
    return f"thinking with {model}"


def running(tool: str) -> str:
    """A tool call running: ``running calculator``."""
    return f"running {tool}"


def ran(tool: str) -> str:
    """A tool call that came back: ``ran calculator``."""
    return f"ran {tool}"


def planned(count: int) -> str:
    """A plan was made: ``planned 3 steps``."""
    return f"planned {count} steps"


def on_step(number: int, title: str) -> str:
    """A plan's step started: ``step 2: <title>``."""
    return f"step {number}: {title}"


def thread_status(state: TurnState, doing: str) -> str:
    """The thread's status line while a turn runs: what it waits on, or which call runs."""
    if state == "waiting":
        return "is waiting for an answer…"
    if doing.startswith((running(""), thinking(""))):
        return f"is {doing}…"
    return "is working…"


def step_position(running: int, total: int) -> str:
    """``step 2 of 3``: the plan's step that runs now."""
    return f"step {running} of {total}"


def steps_done(finished: int, total: int) -> str:
    """``3 of 3 steps``: how much of the plan is done, once nothing runs."""
    return f"{finished} of {total} steps"


def more_steps(count: int) -> str:
    """The plan's last line when ``count`` steps after the window are not shown."""
    return f"… and {count} more"


def calls(model_calls: int, tool_calls: int, *, between: str = " · ") -> str:
    """``3 model calls · 1 tool call`` (a stop's summary says them ``between=", "``)."""
    return f"{_n(model_calls, 'model call')}{between}{_n(tool_calls, 'tool call')}"


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"
