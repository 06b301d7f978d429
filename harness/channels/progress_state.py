"""How a turn's progress moves on with each operation: one rule for the workflow and the reporter.

Pure (harness.domain and the hook contexts), so the task workflow imports it to keep its
:class:`~harness.domain.TurnProgress` (:mod:`harness.temporal.workflow.turn`, after each result)
and the worker's :class:`~harness.channels.progress_reporter.ProgressReporter` to render
what is running now, without the workflow importing the reporter's Slack transport.
"""

from __future__ import annotations

from typing import Final

from harness import replies
from harness.domain import StepProgress, StepState, TurnProgress
from harness.hooks import HookContext
from harness.hooks.contexts import (
    ChannelSentContext,
    LlmInvokedContext,
    PlanCreatedContext,
    StepFinishedContext,
    StepStartedContext,
    ToolInvokedContext,
)

TITLE_CHARS: Final = 80


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[: TITLE_CHARS - 1] + "…"


def advanced(progress: TurnProgress, ctx: HookContext, *, pre: bool) -> TurnProgress:
    """``progress`` moved on by what ``ctx`` says (at its ``pre`` point, or at ``post``).

    The same steps the workflow takes when the operation's result comes back, plus what
    only the running operation knows (which model thinks, which tool runs).
    """
    changes: dict[str, object] = {}
    if isinstance(ctx, LlmInvokedContext):
        changes = (
            {"doing": replies.thinking(_short(ctx.model))}
            if pre
            else {"model_calls": progress.model_calls + 1, "doing": replies.THOUGHT}
        )
    elif isinstance(ctx, ToolInvokedContext):
        name = _short(ctx.call.name)
        changes = (
            {"doing": replies.running(name)}
            if pre
            else {"tool_calls": progress.tool_calls + 1, "doing": replies.ran(name)}
        )
    elif isinstance(ctx, PlanCreatedContext) and ctx.result is not None and not progress.steps:
        steps = tuple(StepProgress(title=_short(s.title)) for s in ctx.result.steps)
        changes = {"steps": steps, "doing": replies.planned(len(steps))}
    elif isinstance(ctx, StepStartedContext):
        step = ctx.result or ctx.step
        changes = {
            "steps": _step(progress, ctx.index, "running"),
            "doing": replies.on_step(ctx.index + 1, _short(step.title)),
        }
    elif isinstance(ctx, StepFinishedContext):
        outcome = ctx.result
        state: StepState = outcome.status if outcome is not None else "done"
        changes = {
            "steps": _step(progress, ctx.index, state, _short(outcome.summary) if outcome else "")
        }
    elif isinstance(ctx, ChannelSentContext) and not progress.message_ts and ctx.result:
        changes = {"message_ts": ctx.result.ts}
    return progress.model_copy(update=changes) if changes else progress


def _step(
    progress: TurnProgress,
    index: int,
    state: StepState,
    note: str = "",
) -> tuple[StepProgress, ...]:
    steps = list(progress.steps)
    if 0 <= index < len(steps):
        steps[index] = steps[index].model_copy(update={"state": state, "note": note})
    return tuple(steps)
