"""Contexts of compaction: deciding to compact, what to keep verbatim, summarising the rest."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import Message
from harness.hooks.contexts.base import HookContext


class CompactionTriggerContext(HookContext):
    """The context's size is checked against its budget; the body returns whether to compact."""

    operation: ClassVar[str] = "compaction.trigger"
    token_count: int
    token_budget: int
    result: bool | None = None


class CompactionKeepContext(HookContext):
    """The body returns the indices of the messages kept verbatim."""

    operation: ClassVar[str] = "compaction.keep"
    messages: tuple[Message, ...]
    result: tuple[int, ...] | None = None


class CompactionSummariseContext(HookContext):
    """The messages not kept are summarised; the body returns the summary text."""

    operation: ClassVar[str] = "compaction.summarise"
    messages: tuple[Message, ...]
    model: str = ""
    result: str | None = None
