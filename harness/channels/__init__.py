"""Channels: where a task's messages come from and go to (Slack's Web API, or its local stand-in).

The Slack transport is :mod:`harness.channels.slack`; the default bodies of
``channel.received`` and ``channel.sent`` live in :mod:`harness.bodies.channel`. The
bot (``bot/``) is the other half, receiving Slack's events and buttons and forwarding
them to the task.
"""

from __future__ import annotations

from harness.channels.slack import (
    REPLY_HINT,
    SlackChannel,
    closed_blocks,
    help_blocks,
    question_text,
)

__all__ = [
    "REPLY_HINT",
    "SlackChannel",
    "closed_blocks",
    "help_blocks",
    "question_text",
]
