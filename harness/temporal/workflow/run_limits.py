"""RunLimits: when a task's run continues as new, on the project's own limits.

Workflow code (sandboxed, deterministic). Temporal caps one execution's history (events,
bytes) and the updates it takes, and a channel task lives for weeks, taking an update
per message and command; so a run rolls over to a new one well before any of Temporal's
caps: at ``history_event_limit`` events, ``history_bytes_limit`` bytes or
``history_update_limit`` updates (settings, read once per run as
:class:`~harness.agent.state.LoopDefaults`), or when Temporal suggests it. The roll-over
itself (between requests, carrying the state) is :meth:`Conversation.run_until`'s.

Running sub-tasks hold the roll-over back (closing the run would cancel them), but at
most ``subtask_wait_seconds`` after a limit was reached: then they are cancelled, each
reporting as cancelled, and named in the thread. They are not handed to the next run: a
child workflow belongs to the run that started it, and an abandoned one could no longer
be watched or cancelled by its parent.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.agent.state import LoopDefaults
    from harness.temporal.workflow.subtasks import Cut, with_cancelled

RUN_LIMITS_PATCH: Final = "run-limits-v1"
"""``workflow.patched`` id of the limits (issue 13): a run replayed from an older history
keeps the old rule (events only, and never while a sub-task runs)."""


class RunLimits:
    """The limits of one run and what it has taken against them."""

    def __init__(self) -> None:
        self.defaults: LoopDefaults | None = None
        """The worker's limits, once the run read them (``None``: only Temporal's hint)."""
        self.updates = 0
        self._reached_at: datetime | None = None

    def took_update(self) -> None:
        """Count one update this run accepted (Temporal counts them per execution)."""
        self.updates += 1

    def reached(self) -> str:
        """The limit reached: ``events``, ``bytes``, ``updates``, ``suggested``, or ""."""
        info = workflow.info()
        limits = self.defaults
        if limits is not None:
            if info.get_current_history_length() >= limits.history_event_limit:
                return "events"
            if info.get_current_history_size() >= limits.history_bytes_limit:
                return "bytes"
            if self.updates >= limits.history_update_limit:
                return "updates"
        return "suggested" if info.is_continue_as_new_suggested() else ""

    def may_roll(self, children_running: bool) -> bool:
        """Whether the run should continue as new now (between requests).

        Args:
            children_running: the task has sub-tasks that have not ended.
        """
        if not self.reached():
            return False
        if self._reached_at is None:
            self._reached_at = workflow.now()
        return not children_running or self.wait_left() == 0

    def wait_left(self) -> float | None:
        """Seconds running sub-tasks may still hold the roll-over back (``None``: no limit hit)."""
        if self._reached_at is None:
            return None
        wait = self.defaults.subtask_wait_seconds if self.defaults is not None else 0.0
        waited = (workflow.now() - self._reached_at).total_seconds()
        return max(0.0, wait - waited)

    async def until(self, message: Callable[[], bool], should_pause: Callable[[], bool]) -> None:
        """Wait for a ``message()`` or ``should_pause()``, with a timer only while sub-tasks
        hold a reached limit back; woken to start that timer when the limit is reached."""
        while not message() and not should_pause():
            left = self.wait_left()

            def woken(left: float | None = left) -> bool:
                started = left is None and self.wait_left() is not None
                return message() or should_pause() or started

            try:
                await workflow.wait_condition(woken, timeout=left or None)
            except TimeoutError:
                pass

    def events_full(self) -> bool:
        """The rule of runs started before the patch: the event limit, or Temporal's hint."""
        info = workflow.info()
        limit = self.defaults.history_event_limit if self.defaults is not None else 0
        full = bool(limit) and info.get_current_history_length() >= limit
        return full or info.is_continue_as_new_suggested()


def rolled_over(why: str, cancelled: Cut) -> str:
    """What the thread is told when sub-tasks were cancelled so the run could roll over."""
    return replies.rolled_over(why, with_cancelled("", cancelled))
