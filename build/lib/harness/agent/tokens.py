"""A rough token count shared by the loop (compaction budgets) and the offline model.

Pure and dependency-free so workflow code can call it: four characters a token plus
a few per message. Deliberately not a tokenizer (no vendor dependency; budgets carry
slack anyway).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from harness.domain import Message

PER_MESSAGE: Final = 4


def estimate_tokens(messages: Iterable[Message]) -> int:
    """Estimated tokens of ``messages`` (content and tool-call arguments)."""
    total = 0
    for message in messages:
        chars = len(message.content)
        chars += sum(len(c.name) + len(str(c.arguments)) for c in message.tool_calls)
        total += PER_MESSAGE + (chars + 3) // 4
    return total
