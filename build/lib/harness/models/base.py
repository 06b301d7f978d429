"""What every model provider accepts and returns: :class:`ModelRequest` in, ``LlmResponse`` out.

A request is provider-neutral (the hook contexts' ``Message``/``ToolSpec`` types);
each provider translates it to its vendor's wire format and back. ``purpose`` says
why the call is made (the main loop, triage, a plan, a compaction summary): real
providers only see it through the system prompt the body wrote, while the offline
model reads it to stay deterministic without parsing prose. Choosing a provider is
:mod:`harness.models.registry`'s job; calling one from a hook body is
:mod:`harness.agent`'s.
"""

from __future__ import annotations

from typing import Final, Literal, Protocol

from harness.domain import DEFAULT_EFFORT, Effort, Frozen, LlmResponse, Message, ToolSpec
from harness.hooks.contexts import LlmInvokedContext

Purpose = Literal["chat", "triage", "plan", "summary", "agent"]

DEFAULT_MAX_TOKENS: Final = 4096


class ModelRequest(Frozen):
    """One model call, in the harness's own terms."""

    model: str
    messages: tuple[Message, ...]
    effort: Effort = DEFAULT_EFFORT
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = DEFAULT_MAX_TOKENS
    purpose: Purpose = "chat"

    @classmethod
    def from_llm(cls, ctx: LlmInvokedContext) -> ModelRequest:
        """The request an ``llm.invoked`` context describes (after its pre chain)."""
        return cls(
            model=ctx.model,
            messages=ctx.messages,
            effort=ctx.effort,
            tools=ctx.tools,
            max_tokens=ctx.max_tokens,
        )

    @property
    def system(self) -> str:
        """The system messages joined, for APIs that take the system prompt apart."""
        return "\n\n".join(m.content for m in self.messages if m.role == "system" and m.content)


class ModelProvider(Protocol):
    """A model behind an API (or none: the offline model).

    ``complete`` raises :class:`harness.models.errors.ModelError` for every failure;
    tool calls come back parsed in ``LlmResponse.tool_calls`` with their arguments
    as dicts, whatever the vendor's encoding.
    """

    name: str

    async def complete(self, request: ModelRequest) -> LlmResponse: ...
