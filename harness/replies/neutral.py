"""Neutral echo: text a person typed, made safe to show back in Slack without pinging anyone.

Whatever the harness repeats from user input (a usage error quoting the argument,
the "working on …" note, a task or sub-task title) is plain text by then (the bot
unescaped Slack's markup on the way in), so ``<!channel>`` or ``<@U1>`` in it would
become a live mention when posted. Escaping ``&``, ``<`` and ``>`` as Slack asks
makes Slack show the characters instead (issue 10). Text the harness writes on
purpose, such as the ``<@U1>`` of an ``/invite`` reply, is not passed through here.
"""

from __future__ import annotations

from typing import Final

_ESCAPES: Final = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def neutral(text: str) -> str:
    """``text`` with Slack's three control characters escaped: shown as typed, never a mention."""
    return text.translate(_ESCAPES)
