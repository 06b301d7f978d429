"""Default bodies of the model-facing operations: context.created, llm.invoked,
system_one.invoked and tool_calls.extracted.

Each calls the :class:`~harness.models.ModelRegistry` with a
:class:`~harness.models.ModelRequest`; prompts and lenient parsers live in
:mod:`harness.agent.prompts`. ``plan.created`` is in :mod:`harness.bodies.plan`.
"""

from __future__ import annotations

from typing import Final, Self, final

from harness.agent.prompts import BASE_INSTRUCTIONS, TRIAGE_PROMPT, parse_triage
from harness.bodies.marker import Bodies, Wiring, body
from harness.domain import Message
from harness.hooks.contexts import (
    ContextCreatedContext,
    LlmInvokedContext,
    SystemOneInvokedContext,
    ToolCallsExtractedContext,
)
from harness.models import ModelRegistry, ModelRequest
from harness.skills import SkillError, SkillLoader

TRIAGE_CONTEXT_MESSAGES: Final = 6
"""How much recent transcript the fast model sees: enough to resolve "do that again"."""


@final
class LlmBodies(Bodies):
    """Bodies that build prompts and call models.

    Args:
        models: routes model names to providers.
        skills: reads loaded skills' instructions.
    """

    def __init__(self, *, models: ModelRegistry, skills: SkillLoader) -> None:
        self.models = models
        self.skills = skills

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(models=wiring.deps.models, skills=wiring.deps.skills)

    @body(ContextCreatedContext)
    async def context_created(self, ctx: ContextCreatedContext) -> ContextCreatedContext:
        """System prompt (base + agent instructions + each loaded skill), then the transcript."""
        system = [BASE_INSTRUCTIONS]
        if ctx.instructions:
            system.append(f"Instructions of agent {ctx.agent or 'default'}:\n{ctx.instructions}")
        for name in ctx.skills:
            try:
                skill = self.skills.read(name)
            except SkillError as error:  # a skill folder removed mid-task: say so, go on
                system.append(f"Skill {name} is unavailable: {error.detail}")
                continue
            system.append(f"Skill {name}:\n{skill.instructions}")
        messages = (Message(role="system", content="\n\n".join(system)), *ctx.transcript)
        return ctx.model_copy(update={"result": messages})

    @body(LlmInvokedContext)
    async def llm_invoked(self, ctx: LlmInvokedContext) -> LlmInvokedContext:
        """Call the model the context names (``/model``) with its effort (``/effort``)."""
        response = await self.models.complete(ModelRequest.from_llm(ctx))
        return ctx.model_copy(update={"result": response})

    @body(SystemOneInvokedContext)
    async def system_one_invoked(self, ctx: SystemOneInvokedContext) -> SystemOneInvokedContext:
        """Ask the fast model for a triage verdict (JSON), read leniently."""
        recent = ctx.transcript[-TRIAGE_CONTEXT_MESSAGES:]
        messages = (
            Message(role="system", content=TRIAGE_PROMPT),
            *(m for m in recent if m.role in ("user", "assistant") and m.content),
            Message(role="user", content=ctx.request),
        )
        response = await self.models.complete(
            ModelRequest(model=ctx.model, messages=messages, effort="low", purpose="triage")
        )
        # The tokens are the provider's word, never the model's text (the budget counts them).
        triage = parse_triage(response.text).model_copy(update={"usage": response.usage})
        return ctx.model_copy(update={"result": triage})

    @body(ToolCallsExtractedContext)
    async def tool_calls_extracted(
        self, ctx: ToolCallsExtractedContext
    ) -> ToolCallsExtractedContext:
        """The response's calls, each id once (a repeated id would pair results wrongly)."""
        seen: set[str] = set()
        calls = []
        for call in ctx.response.tool_calls:
            if call.id and call.id not in seen:
                seen.add(call.id)
                calls.append(call)
        return ctx.model_copy(update={"result": tuple(calls)})
