"""Pure compaction helpers: which messages to keep, and the transcript after compacting.

The decisions are hook operations (``compaction.trigger``/``keep``/``summarise``,
bodies in :mod:`harness.bodies.compaction`); these functions are what the
default ``keep`` body and the loop compute, free of I/O so workflow code may use them.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

from harness.agent.prompts import SUMMARY_PREFIX
from harness.domain import Message


def keep_indices(messages: Sequence[Message], keep_last: int) -> tuple[int, ...]:
    """System messages and the last ``keep_last`` messages, kept verbatim.

    The tail is widened backwards so it never starts with tool results whose
    assistant call would be summarised away (the vendors reject orphaned results).
    """
    start = max(0, len(messages) - keep_last)
    while 0 < start < len(messages) and messages[start].role == "tool":
        start -= 1
    return tuple(i for i, m in enumerate(messages) if m.role == "system" or i >= start)


def apply_compaction(messages: Sequence[Message], keep: Set[int], summary: str) -> list[Message]:
    """The kept messages in order, with one summary message where the first dropped one was."""
    out: list[Message] = []
    placed = False
    for index, message in enumerate(messages):
        if index in keep:
            out.append(message)
        elif not placed:
            # A user message, not system: a later compaction summarises it again, so
            # summaries do not pile up as verbatim system messages.
            out.append(Message(role="user", content=SUMMARY_PREFIX + summary))
            placed = True
    return out
