"""Default bodies of help.requested and help.decided.

``help.requested`` completes the question (choices, approval wording) that the
worker posts with Slack buttons; ``help.decided`` accepts only a participant allowed
to decide (owner or collaborator) and refuses anyone else with a
:class:`~harness.hooks.HookAbort`, which the loop reports and keeps waiting. A timed-out
request is decided too, by nobody: not approved, and never a denial in anyone's name.
"""

from __future__ import annotations

import json
from typing import Final, final

from harness import replies
from harness.bodies.marker import Bodies, body
from harness.domain import HelpDecision, Role
from harness.hooks import HookAbort
from harness.hooks.contexts import HelpDecidedContext, HelpRequestedContext

DECIDERS: Final = frozenset({Role.OWNER, Role.COLLABORATOR})
APPROVE: Final = "Approve"
DENY: Final = "Deny"
REMEMBER: Final = "Approve and don't ask again for this tool in this task"
APPROVAL_OPTIONS: Final = (APPROVE, DENY, REMEMBER)
"""The buttons of an approval; the last approves every later call of the tool in the task."""
_APPROVED: Final = frozenset({"approve", "approved", "yes"})


@final
class HelpBodies(Bodies):
    """Bodies of a help request and its answer; they need nothing but the context."""

    @body(HelpRequestedContext)
    async def help_requested(self, ctx: HelpRequestedContext) -> HelpRequestedContext:
        """Complete the request as posted: approvals get the call and :data:`APPROVAL_OPTIONS`."""
        request = ctx.request
        if request.kind == "approval":
            question = request.question
            if request.tool_call is not None:
                args = json.dumps(request.tool_call.arguments, sort_keys=True)
                question = f"The agent wants to call {request.tool_call.name} with {args}. Approve?"
            request = request.model_copy(
                update={"question": question, "options": request.options or APPROVAL_OPTIONS}
            )
        return ctx.model_copy(update={"result": request})

    @body(HelpDecidedContext)
    async def help_decided(self, ctx: HelpDecidedContext) -> HelpDecidedContext:
        """Accept the answer of an owner or collaborator.

        Raises:
            HookAbort: (a refusal) the person is a watcher or not in the task.
        """
        if ctx.timed_out:  # nobody decided: not approved, and no person's name on it
            nobody = HelpDecision(
                request_id=ctx.request.request_id, decided_by="", choice="", timed_out=True
            )
            return ctx.model_copy(update={"result": nobody})
        role = ctx.role_of(ctx.decided_by)
        if ctx.request.kind == "budget" and role is not Role.OWNER:
            # Raising a limit spends the owner's money: theirs alone to decide (issue 14).
            raise HookAbort(replies.budget_owner_only(ctx.decided_by), refusal=True)
        if role not in DECIDERS:
            raise HookAbort(replies.cannot_answer(ctx.decided_by, role), refusal=True)
        choice = ctx.choice.strip().lower()
        remember = ctx.request.kind == "approval" and choice == REMEMBER.lower()
        approved = remember or (ctx.request.kind == "approval" and choice in _APPROVED)
        decision = HelpDecision(
            request_id=ctx.request.request_id,
            decided_by=ctx.decided_by,
            choice=ctx.choice,
            approved=approved,
            remember=remember,
        )
        return ctx.model_copy(update={"result": decision})
