"""Channels: where a task's messages come from and go to (Slack's Web API, or its local stand-in).

The default bodies of ``channel.received`` and ``channel.sent`` live in
:mod:`harness.channels.slack`; the bot (``bot/``) is the other half, receiving Slack's
events and buttons and forwarding them to the task.
"""

from __future__ import annotations

from harness.channels.neutral import neutral
from harness.channels.slack import (
    REPLY_HINT,
    SlackChannel,
    help_blocks,
    question_text,
    register_channel_builtin,
)

__all__ = [
    "REPLY_HINT",
    "SlackChannel",
    "help_blocks",
    "neutral",
    "question_text",
    "register_channel_builtin",
]
