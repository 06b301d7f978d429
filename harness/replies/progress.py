"""A turn's progress message in words: its state, where the plan stands, what it has called.

The layout (blocks, the plan's window, the Stop button's action) is
:mod:`harness.channels.progress`'s; the words it shows are here.
"""

from __future__ import annotations

from typing import Final

from harness.domain.progress import TurnState

__all__ = ["STOP_BUTTON", "TURN_STATES", "calls", "more_steps", "step_position", "steps_done"]


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


def step_position(running: int, total: int) -> str:
    """``step 2 of 3``: the plan's step that runs now."""
    return f"step {running} of {total}"


def steps_done(finished: int, total: int) -> str:
    """``3 of 3 steps``: how much of the plan is done, once nothing runs."""
    return f"{finished} of {total} steps"


def more_steps(count: int) -> str:
    """The plan's last line when ``count`` steps after the window are not shown."""
    return f"… and {count} more"


def calls(model_calls: int, tool_calls: int) -> str:
    """``3 model calls · 1 tool call``."""
    return f"{_n(model_calls, 'model call')} · {_n(tool_calls, 'tool call')}"


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"
