"""Default bodies of tool calls, help requests and plan steps.

``tool.invoked`` runs the call through the :class:`~harness.tools.ToolRegistry`;
``help.requested`` completes the question (choices, approval wording) that the
worker posts with Slack buttons; ``help.decided`` accepts only a participant allowed
to decide (owner or collaborator) and refuses anyone else with a
:class:`~harness.hooks.HookAbort`, which the loop reports and keeps waiting.
"""

from __future__ import annotations

import json
from typing import Final, final

from harness.domain import HelpDecision, Role, StepOutcome
from harness.hooks import HookAbort
from harness.hooks.contexts import (
    HelpDecidedContext,
    HelpRequestedContext,
    StepFinishedContext,
    StepStartedContext,
    ToolInvokedContext,
)
from harness.tools import ToolRegistry

DECIDERS: Final = frozenset({Role.OWNER, Role.COLLABORATOR})
APPROVE: Final = "approve"
DENY: Final = "deny"
SUMMARY_CHARS: Final = 300


@final
class ToolBodies:
    """Bodies around tool calls, help and steps.

    Args:
        tools: the worker's tools.
    """

    def __init__(self, *, tools: ToolRegistry) -> None:
        self.tools = tools

    async def tool_invoked(self, ctx: ToolInvokedContext) -> ToolInvokedContext:
        """Run the (possibly rewritten) call; a refused call is an ``is_error`` result."""
        task_id = ctx.task.task_id if ctx.task else ""
        result = await self.tools.invoke(ctx.call, task_id=task_id)
        return ctx.model_copy(update={"result": result})

    async def help_requested(self, ctx: HelpRequestedContext) -> HelpRequestedContext:
        """Complete the request as posted: approvals get the call and approve/deny buttons."""
        request = ctx.request
        if request.kind == "approval":
            question = request.question
            if request.tool_call is not None:
                args = json.dumps(request.tool_call.arguments, sort_keys=True)
                question = f"The agent wants to call {request.tool_call.name} with {args}. Approve?"
            request = request.model_copy(
                update={"question": question, "options": request.options or (APPROVE, DENY)}
            )
        return ctx.model_copy(update={"result": request})

    async def help_decided(self, ctx: HelpDecidedContext) -> HelpDecidedContext:
        """Accept the answer of an owner or collaborator.

        Raises:
            HookAbort: (a refusal) the person is a watcher or not in the task.
        """
        role = ctx.role_of(ctx.decided_by)
        if role not in DECIDERS:
            who = "not a participant" if role is Role.NONE else f"a {role.value}"
            raise HookAbort(
                f"{ctx.decided_by} is {who}; only the owner or a collaborator can answer",
                refusal=True,
            )
        approved = ctx.request.kind == "approval" and ctx.choice.strip().lower() in (
            APPROVE,
            "approved",
            "yes",
        )
        decision = HelpDecision(
            request_id=ctx.request.request_id,
            decided_by=ctx.decided_by,
            choice=ctx.choice,
            approved=approved,
        )
        return ctx.model_copy(update={"result": decision})

    async def step_started(self, ctx: StepStartedContext) -> StepStartedContext:
        """Run the step as planned."""
        return ctx.model_copy(update={"result": ctx.step})

    async def step_finished(self, ctx: StepFinishedContext) -> StepFinishedContext:
        """Done with its output as the summary; an empty output counts as failed."""
        text = " ".join(ctx.output.split())
        if len(text) > SUMMARY_CHARS:
            text = text[: SUMMARY_CHARS - 1] + "…"
        status = "done" if text else "failed"
        outcome = StepOutcome(status=status, summary=text or "no output")
        return ctx.model_copy(update={"result": outcome})
