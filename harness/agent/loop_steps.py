"""The turn machinery of the agent loop: model turns, tool calls, help requests, compaction.

Split from the loop's top level (triage, plans) only to keep modules small; the
design note on how the workflow drives all of it is in :mod:`harness.agent.loop`.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar

from harness import replies
from harness.agent import budget
from harness.agent.compaction import apply_compaction
from harness.agent.operations import Operations, perform
from harness.agent.state import ASK_HUMAN, AgentState, LoopIdentity
from harness.agent.tokens import estimate_tokens
from harness.domain import Frozen, HelpDecision, HelpRequest, Message, ToolCall, ToolResult
from harness.domain.outcome import Asked, Done
from harness.hooks import HookAbort, HookContext
from harness.hooks.contexts import (
    CompactionKeepContext,
    CompactionSummariseContext,
    CompactionTriggerContext,
    ContextCreatedContext,
    HelpDecidedContext,
    HelpRequestedContext,
    LlmInvokedContext,
    SkillLoadedContext,
    SkillUnloadedContext,
    ToolCallsExtractedContext,
    ToolInvokedContext,
)

C = TypeVar("C", bound=HookContext)


class HelpAnswer(Frozen):
    """A person's answer to a help request, before ``help.decided`` judges it."""

    decided_by: str
    choice: str
    timed_out: bool = False
    """The request's ``timeout_seconds`` passed with no answer (``decided_by`` is ``""``)."""


class HelpWaiter(Protocol):
    """Where the loop waits for people (see :mod:`harness.agent.loop` for the workflow's)."""

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        """Post ``request`` (as returned by ``help.requested``) and wait for an answer."""
        ...

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        """Tell whoever gave ``answer`` that it was refused; the loop then waits again."""
        ...

    async def accepted(self, decision: HelpDecision) -> None:
        """``help.decided`` accepted an answer; the loop goes on (the task is running again).

        Separate from :meth:`wait` because only after ``help.decided`` is it known
        whether the wait is over: a refused answer leaves the question open.
        """
        ...

    def steering(self) -> tuple[Message, ...]:
        """Messages people sent while the turn ran, to add to the context now (``steer`` mode).

        Called at each safe boundary (before a model call, after a tool call); returns
        each message once, ``()`` when there is none.
        """
        ...

    async def notify(self, text: str) -> None:
        """Tell the task's thread something the loop noticed (a budget nearly used)."""
        ...


class LoopSteps:
    """Turns of the main model, each tool call, help requests and compaction."""

    def __init__(
        self,
        runner: Operations,
        waiter: HelpWaiter,
        state: AgentState,
        identity: LoopIdentity,
    ) -> None:
        self.runner = runner
        self.waiter = waiter
        self.state = state
        self.identity = identity

    def context_fields(self) -> dict[str, Any]:  # pragma: no cover - AgentLoop defines it
        raise NotImplementedError

    async def run(self, cls: type[C], **fields: Any) -> C:  # noqa: ANN401  # context fields
        """Build a ``cls`` context with the identity fields and perform its operation."""
        ctx = cls(**self.context_fields(), **fields)
        return await self.runner.run(ctx)

    def patched(self, patch_id: str) -> bool:
        """Whether this run takes the code guarded by ``patch_id``: the guard for a change to
        what the loop performs (:meth:`~harness.agent.operations.Operations.patched`)."""
        return self.runner.patched(patch_id)

    async def run_turns(self) -> str:
        """Call the model until it answers without tool calls (or ``max_turns`` is reached).

        Returns:
            The model's last text (also in the transcript).
        """
        state = self.state
        text = ""
        for _ in range(state.max_turns):
            self.take_steering()
            await self.compact_if_needed()
            prompt = await self.run(
                ContextCreatedContext,
                transcript=tuple(state.transcript),
                skills=tuple(skill.name for skill in state.skills),
                agent=state.agent,
                instructions=state.instructions,
                token_budget=state.token_budget,
            )
            messages = prompt.result if prompt.result is not None else tuple(state.transcript)
            await budget.gate(self, budget.MODEL_LIMITS)
            called = await self.run(
                LlmInvokedContext,
                model=state.model,
                effort=state.effort,
                messages=messages,
                tools=state.offered_tools(),
            )
            response = called.result
            if response is None:
                raise HookAbort(replies.no_response(), point=f"{LlmInvokedContext.operation}.in")
            await budget.count(self, tokens=response.usage, model=state.model)
            extracted = await self.run(ToolCallsExtractedContext, response=response)
            calls = extracted.result if extracted.result is not None else response.tool_calls
            text = response.text
            state.transcript.append(Message(role="assistant", content=text, tool_calls=calls))
            if not calls:
                return text
            for call in calls:
                result = await self.call_tool(call)
                state.transcript.append(
                    Message(
                        role="tool", tool_call_id=call.id, name=call.name, content=result.content
                    )
                )
        note = replies.turns_used_up(state.max_turns)
        state.transcript.append(Message(role="assistant", content=note))
        return note

    def take_steering(self) -> None:
        """Add what people said meanwhile to the transcript (a safe boundary: no call open)."""
        for message in self.waiter.steering():
            said = replies.added_meanwhile(message.name or "", message.content)
            self.state.transcript.append(message.model_copy(update={"content": said}))

    async def call_tool(self, call: ToolCall) -> ToolResult:
        """One tool call: ``ask_human``, or ``tool.invoked``, asking a person when a pre asks.

        The call's outcome is read as it comes: done, its result; asked (a pre executor's
        ``HookAbort(ask=True)``, the approval policy's verdict), the call is held for the
        task's deciders and, approved, runs again with the approval on its context;
        refused, the model reads why (:func:`harness.replies.tool_refused`). A
        tool approved "don't ask again" carries that standing approval on every later
        call, in this turn and after.
        """
        state = self.state
        if call.name == ASK_HUMAN and state.can_ask:
            question = str(call.arguments.get("question") or replies.NEEDS_INPUT)
            options = call.arguments.get("options") or ()
            answer = await self.ask(question, tuple(str(o) for o in options))
            return ToolResult(content=answer)
        server = call.name.split("__", 1)[0] if "__" in call.name else ""
        approval = self._standing_approval(call)
        if state.ask_first and call.name in state.catalogue.approval and approval is None:
            # A run from before approvals by policy replays its history in this order.
            approval = await self.decide(
                HelpRequest(
                    request_id=self._help_id(),
                    kind="approval",
                    question=f"Approve {call.name}?",
                    tool_call=call,
                )
            )
            if not approval.approved:
                return _not_approved(approval, 0.0)
        await budget.gate(self, budget.TOOL_LIMITS)
        while True:
            fields = {"call": call, "server": server, "approvals": state.approvals}
            ctx = ToolInvokedContext(**self.context_fields(), **fields, approval=approval)
            outcome = await perform(self.runner, ctx)
            if isinstance(outcome, Done):
                break
            if isinstance(outcome, Asked) and approval is None and state.can_ask:
                decision = await self.approve(call, outcome)
                if not decision.approved:
                    return _not_approved(decision, outcome.timeout_seconds)
                approval = decision
                continue
            # One vetoed call is an answer the model must see, not the end of the task.
            return ToolResult(content=replies.tool_refused(outcome), is_error=True)
        await budget.count(self, tool_calls=1)
        done = outcome.context.result
        return done or ToolResult(content="(the tool returned nothing)", is_error=True)

    async def approve(self, call: ToolCall, asked: Asked) -> HelpDecision:
        """Ask the task's deciders to approve ``call`` (held by ``asked``); their decision.

        "Approve and don't ask again" puts the tool in the task's standing approvals.
        """
        request = HelpRequest(
            request_id=self._help_id(),
            kind="approval",
            tool_call=call,
            question=f"Approve {call.name}? ({asked.reason})",
            timeout_seconds=asked.timeout_seconds,
        )
        decision = await self.decide(request)
        if decision.approved and decision.remember and call.name not in self.state.approved_tools:
            self.state.approved_tools.append(call.name)
        return decision

    def _standing_approval(self, call: ToolCall) -> HelpDecision | None:
        """The task's "don't ask again" approval of ``call``'s tool, as that call's approval."""
        if call.name not in self.state.approved_tools:
            return None
        return HelpDecision(
            request_id=f"standing:{call.name}",
            decided_by="",
            choice="standing",
            approved=True,
            remember=True,
        )

    async def ask(self, question: str, options: tuple[str, ...]) -> str:
        """Ask the task's people ``question``; the answer as text for the model."""
        request = HelpRequest(
            request_id=self._help_id(), kind="question", question=question, options=options
        )
        decision = await self.decide(request)
        if decision.timed_out:
            return replies.nobody_answered(request.timeout_seconds)
        return replies.answered(decision.decided_by, decision.choice)

    async def decide(self, request: HelpRequest) -> HelpDecision:
        """``help.requested``, then wait until ``help.decided`` accepts an answer."""
        posted = await self.run(HelpRequestedContext, request=request)
        request = posted.result or request
        while True:
            answer = await self.waiter.wait(request)
            try:
                decided = await self.run(
                    HelpDecidedContext,
                    request=request,
                    decided_by=answer.decided_by,
                    choice=answer.choice,
                    timed_out=answer.timed_out,
                )
            except HookAbort as abort:
                if not abort.refusal:
                    raise
                await self.waiter.refused(answer, abort.reason)
                continue
            decision = decided.result or HelpDecision(
                request_id=request.request_id,
                decided_by=answer.decided_by,
                choice=answer.choice,
                timed_out=answer.timed_out,
            )
            if answer.timed_out:
                # No executor may turn silence into a person's answer (issue 14).
                silence = {"timed_out": True, "approved": False, "remember": False}
                decision = decision.model_copy(update={**silence, "decided_by": ""})
            await self.waiter.accepted(decision)
            return decision

    async def compact_if_needed(self) -> bool:
        """Compact the transcript when ``compaction.trigger`` says so; whether it did."""
        state = self.state
        count = estimate_tokens(state.transcript)
        trigger = await self.run(
            CompactionTriggerContext, token_count=count, token_budget=state.token_budget
        )
        if not trigger.result:
            return False
        messages = tuple(state.transcript)
        kept = await self.run(CompactionKeepContext, messages=messages)
        keep = set(kept.result if kept.result is not None else range(len(messages)))
        dropped = tuple(m for i, m in enumerate(messages) if i not in keep)
        if not dropped:
            return False
        summary = await self.run(CompactionSummariseContext, messages=dropped, model=state.model)
        state.transcript = apply_compaction(messages, keep, summary.result or "")
        return True

    async def load_skill(self, name: str, path: str = "") -> None:
        """``skill.loaded``: add the skill (instructions and tools) to this task's context."""
        loaded = await self.run(SkillLoadedContext, name=name, path=path)
        if loaded.result is not None:
            self.state.skills = [s for s in self.state.skills if s.name != name]
            self.state.skills.append(loaded.result)

    async def unload_skill(self, name: str) -> bool:
        """``skill.unloaded``, if the skill is loaded; whether it was."""
        if not any(s.name == name for s in self.state.skills):
            return False
        done = await self.run(SkillUnloadedContext, name=name)
        if done.result:
            self.state.skills = [s for s in self.state.skills if s.name != name]
        return bool(done.result)

    def _help_id(self) -> str:
        return f"help-{self.identity.task.task_id}-{self.state.sequence + 1}"


def _not_approved(decision: HelpDecision, timeout_seconds: float) -> ToolResult:
    """The result the model reads for a call nobody approved: a timeout is never a denial."""
    return ToolResult(content=replies.tool_not_approved(decision, timeout_seconds), is_error=True)
