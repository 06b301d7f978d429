"""The turn running now, as the task workflow knows it: progress, who stopped it, what is left.

Workflow code (sandboxed, deterministic). A :class:`Turn` is the workflow's record of one
turn: the :class:`~harness.domain.TurnProgress` its progress message shows (the message's
``ts`` is here, so after a worker restart the same message continues), updated from the
results of the loop's operations as they come back (:meth:`Turn.after`), and handed to
the channel side in each loop context's ``entities`` (:meth:`Turn.entity`), where the
progress reporter renders it. Nothing here runs an operation.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness import replies
    from harness.channels.progress import progress_message
    from harness.channels.progress_state import advanced
    from harness.domain import (
        PROGRESS_ENTITY,
        ChannelMessage,
        TurnProgress,
        TurnState,
        duration,
    )
    from harness.hooks import HookContext
    from harness.hooks.contexts import LlmInvokedContext, ToolInvokedContext


class Turn:
    """One turn: its progress, and how it ended when it was stopped.

    Args:
        request: the person's message the turn answers.
        thread: the task's thread (where the progress message goes).
        started_at: workflow time, epoch seconds.
    """

    def __init__(self, request: ChannelMessage, thread: str, started_at: float) -> None:
        self.request = request
        self.progress = TurnProgress(
            request_ts=request.ts,
            channel=request.channel,
            thread=request.thread or thread,
            started_at=started_at,
            doing=replies.STARTING,
        )
        self.stopped_by = ""
        """Who stopped the turn (``/task stop``, the Stop button, an interrupting message)."""
        self.stop_reason = ""
        self.closing = False
        """The turn was cut off because its task ended (nothing waits for a next message)."""
        self.last = False
        """The task ends with this turn (a sub-task's one request): nothing waits after it."""
        self.ends_task = False
        """Stopped, its summary says the task ended with it (a sub-task's one end line)."""

    @property
    def stopping(self) -> bool:
        """Whether the turn was stopped (by a person, a message, its parent, or its task's end)."""
        return bool(self.stopped_by or self.stop_reason)

    def close(self, reason: str) -> None:
        """The turn is cut off because its task ends (``reason``), unless stopped already."""
        if not self.stopping:
            self.stop_reason, self.closing = reason, True

    def entity(self) -> dict[str, str]:
        """The ``entities`` entry every loop context of this turn carries."""
        return {PROGRESS_ENTITY: self.progress.model_dump_json(exclude_defaults=True)}

    def posted(self, ts: str) -> None:
        """The progress message was posted as ``ts``."""
        self._set(message_ts=ts)

    def doing(self, what: str, state: TurnState = "running") -> None:
        """What runs now, in a few words (the status view shows it)."""
        self._set(doing=what, state=state)

    def before(self, ctx: HookContext) -> None:
        """A model or tool call is about to run: name it (``running calculator``), so the
        status view and a stop's summary say what the progress message says."""
        if isinstance(ctx, LlmInvokedContext | ToolInvokedContext):
            self.progress = advanced(self.progress, ctx, pre=True)

    def after(self, ctx: HookContext) -> None:
        """Take in what an operation of the loop returned (the plan, a step's state, counts):
        the same step the reporter takes to render it (:func:`advanced`)."""
        self.progress = advanced(self.progress, ctx, pre=False)

    def end(self, state: TurnState, doing: str = "") -> None:
        """The turn is over: the final state the progress message keeps."""
        steps = self.progress.steps
        if state != "answered":  # what never ran is not done
            steps = tuple(
                s.model_copy(update={"state": "skipped"}) if s.state == "pending" else s
                for s in steps
            )
        self._set(state=state, doing=doing, steps=steps)

    def summary(self, now: float) -> str:
        """What a stopped turn did and did not do, in a few honest lines (the room's words)."""
        return replies.turn_stopped(
            self.progress,
            by=self.stopped_by,
            reason=self.stop_reason,
            after=duration(now - self.progress.started_at),
            cut_off=self.closing,
            waits=not (self.closing or self.last),
            ended=self.ends_task,
        )

    def _set(self, **changes: object) -> None:
        self.progress = self.progress.model_copy(update=changes)


def placeholder(turn: Turn, task_id: str) -> ChannelMessage:
    """The progress message as first posted, with its Stop button (the channel side renders
    every later state with the same function)."""
    return progress_message(turn.progress, task_id=task_id)
