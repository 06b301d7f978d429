"""Contexts of compaction: deciding to compact, what to keep verbatim, summarising the rest."""

from __future__ import annotations

from harness.domain import Message
from harness.hooks.contexts.base import HookContext


class CompactionTriggerContext(HookContext, operation="compaction.trigger", local=True):
    """The context's size is checked against its budget; the body returns whether to compact."""

    token_count: int
    token_budget: int
    result: bool | None = None


class CompactionKeepContext(
    HookContext, operation="compaction.keep", local=True, unechoed=("messages",)
):
    """The body returns the indices of the messages kept verbatim."""

    messages: tuple[Message, ...]
    result: tuple[int, ...] | None = None


class CompactionSummariseContext(
    HookContext, operation="compaction.summarise", calls_model=True, unechoed=("messages",)
):
    """The messages not kept are summarised; the body returns the summary text."""

    messages: tuple[Message, ...]
    model: str = ""
    result: str | None = None
