"""The turn running now, as the task workflow knows it: progress, who stopped it, what is left.

Workflow code (sandboxed, deterministic). A :class:`Turn` is the workflow's record of one
turn: the :class:`~harness.domain.TurnProgress` its progress message shows (the message's
``ts`` is here, so after a worker restart the same message continues), updated from the
results of the loop's operations as they come back (:meth:`Turn.after`), and handed to
the channel side in each loop context's ``entities`` (:meth:`Turn.entity`), where the
progress reporter renders it. Nothing here runs an operation.
"""

from __future__ import annotations

from typing import Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.domain import (
        PROGRESS_ENTITY,
        ChannelMessage,
        StepProgress,
        StepState,
        TurnProgress,
        TurnState,
    )
    from harness.hooks import HookContext
    from harness.hooks.contexts import (
        LlmInvokedContext,
        PlanCreatedContext,
        StepFinishedContext,
        StepStartedContext,
        ToolInvokedContext,
    )

TITLE_CHARS: Final = 80
"""A step's title as the progress message shows it (Slack's plan titles are short)."""


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
            request_ts=request.ts, channel=request.channel, thread=request.thread or thread,
            started_at=started_at, doing="starting",
        )  # fmt: skip
        self.stopped_by = ""
        """Who stopped the turn (``/task stop``, the Stop button, an interrupting message)."""
        self.stop_reason = ""

    def entity(self) -> dict[str, str]:
        """The ``entities`` entry every loop context of this turn carries."""
        return {PROGRESS_ENTITY: self.progress.model_dump_json(exclude_defaults=True)}

    def posted(self, ts: str) -> None:
        """The progress message was posted as ``ts``."""
        self._set(message_ts=ts)

    def doing(self, what: str, state: TurnState = "running") -> None:
        """What runs now, in a few words (the status view shows it)."""
        self._set(doing=what, state=state)

    def after(self, ctx: HookContext) -> None:
        """Take in what an operation of the loop returned (the plan, a step's state, counts)."""
        progress = self.progress
        if isinstance(ctx, PlanCreatedContext) and ctx.result is not None:
            steps = tuple(StepProgress(title=_short(s.title)) for s in ctx.result.steps)
            self._set(steps=steps, doing=f"planned {len(steps)} steps")
        elif isinstance(ctx, StepStartedContext):
            self._step(ctx.index, "running")
            step = ctx.result or ctx.step
            self._set(doing=f"step {ctx.index + 1}: {_short(step.title)}")
        elif isinstance(ctx, StepFinishedContext):
            outcome = ctx.result
            state: StepState = outcome.status if outcome is not None else "done"
            self._step(ctx.index, state, _short(outcome.summary) if outcome else "")
        elif isinstance(ctx, LlmInvokedContext):
            self._set(model_calls=progress.model_calls + 1, doing="thought")
        elif isinstance(ctx, ToolInvokedContext):
            self._set(tool_calls=progress.tool_calls + 1, doing=f"ran {ctx.call.name}")

    def end(self, state: TurnState, doing: str = "") -> None:
        """The turn is over: the final state the progress message keeps."""
        steps = self.progress.steps
        if state != "answered":  # what never ran is not done
            steps = tuple(s.model_copy(update={"state": "skipped"}) if s.state == "pending"
                          else s for s in steps)  # fmt: skip
        self._set(state=state, doing=doing, steps=steps)

    def summary(self, now: float) -> str:
        """What a stopped turn did and did not do, in a few honest lines."""
        progress = self.progress
        who = f" by <@{self.stopped_by}>" if self.stopped_by else ""
        why = f" ({self.stop_reason})" if self.stop_reason else ""
        lines = [f"stopped{who}{why} after {_elapsed(now - progress.started_at)}."]
        done = [s.title for s in progress.steps if s.state == "done"]
        left = [s.title for s in progress.steps if s.state in ("pending", "running", "skipped")]
        if done:
            lines.append("done: " + "; ".join(done))
        if left:
            lines.append("not done: " + "; ".join(left))
        if progress.doing and progress.doing != "starting":
            lines.append(f"last: {progress.doing}")
        calls = f"{progress.model_calls} model calls, {progress.tool_calls} tool calls"
        lines.append(f"{calls}. The task waits for your next message.")
        return "\n".join(lines)

    def _step(self, index: int, state: StepState, note: str = "") -> None:
        steps = list(self.progress.steps)
        if 0 <= index < len(steps):
            steps[index] = steps[index].model_copy(update={"state": state, "note": note})
            self._set(steps=tuple(steps))

    def _set(self, **changes: object) -> None:
        self.progress = self.progress.model_copy(update=changes)


def placeholder(turn: Turn, task_id: str) -> ChannelMessage:
    """The progress message as first posted (the channel side renders every later state)."""
    progress = turn.progress
    return ChannelMessage(channel=progress.channel, thread=progress.thread,
                          text="working on it…")  # fmt: skip


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


def _elapsed(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes} min {seconds} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
