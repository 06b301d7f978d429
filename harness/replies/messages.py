"""How a message fits Slack, in words: the line saying what did not fit, and the hint under
a question that has no buttons.
"""

from __future__ import annotations

from typing import Final

__all__ = ["REPLY_HINT", "fitted"]


REPLY_HINT: Final = "reply in this thread to answer"
"""Shown with a question that has no buttons: the task takes the next reply as the answer."""


def fitted(text: str, limit: int) -> str:
    """``text`` as one Slack message holds it: cut at a line before ``limit`` characters, with
    a last line saying how much did not fit (the transcript keeps it all)."""
    if len(text) <= limit:
        return text

    def note(left: int) -> str:
        return f"\n… ({left:,} more characters do not fit in one Slack message)"

    head = text[: limit - len(note(len(text)))]
    head = head.rsplit("\n", 1)[0] if "\n" in head else head
    return head + note(len(text) - len(head))
