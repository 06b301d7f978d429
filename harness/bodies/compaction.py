"""Default bodies of compaction: trigger over budget, keep the tail verbatim, summarise the rest.

The token count and budget arrive on the trigger's context (the loop estimates them
with :func:`harness.agent.tokens.estimate_tokens`); what is kept is chosen by
:func:`harness.agent.compaction.keep_indices`; the summary is one model call.
"""

from __future__ import annotations

from typing import Final, Self, final

from harness.agent.compaction import keep_indices
from harness.agent.prompts import SUMMARY_PROMPT, render_transcript
from harness.bodies.deps import DEFAULT_KEEP_LAST
from harness.bodies.marker import Bodies, Wiring, body
from harness.domain import Message
from harness.hooks.contexts import (
    CompactionKeepContext,
    CompactionSummariseContext,
    CompactionTriggerContext,
)
from harness.models import ModelRegistry, ModelRequest

SUMMARY_MAX_TOKENS: Final = 1024


@final
class CompactionBodies(Bodies):
    """Compaction's default bodies.

    Args:
        models: for the summary call.
        keep_last: messages kept verbatim at the end of the transcript.
    """

    def __init__(self, *, models: ModelRegistry, keep_last: int = DEFAULT_KEEP_LAST) -> None:
        self.models = models
        self.keep_last = keep_last

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(models=wiring.deps.models, keep_last=wiring.deps.keep_last)

    @body(CompactionTriggerContext)
    async def compaction_trigger(self, ctx: CompactionTriggerContext) -> CompactionTriggerContext:
        """Compact when over a positive budget (a budget of 0 means never)."""
        over = ctx.token_budget > 0 and ctx.token_count > ctx.token_budget
        return ctx.model_copy(update={"result": over})

    @body(CompactionKeepContext)
    async def compaction_keep(self, ctx: CompactionKeepContext) -> CompactionKeepContext:
        """System messages and the last ``keep_last`` messages (never orphaning tool results)."""
        return ctx.model_copy(update={"result": keep_indices(ctx.messages, self.keep_last)})

    @body(CompactionSummariseContext)
    async def compaction_summarise(
        self, ctx: CompactionSummariseContext
    ) -> CompactionSummariseContext:
        """One model call over the dropped messages, rendered one line each."""
        response = await self.models.complete(
            ModelRequest(
                model=ctx.model,
                messages=(
                    Message(role="system", content=SUMMARY_PROMPT),
                    Message(role="user", content=render_transcript(ctx.messages)),
                ),
                effort="low",
                max_tokens=SUMMARY_MAX_TOKENS,
                purpose="summary",
            )
        )
        return ctx.model_copy(update={"result": response.text})
