"""Contexts of every message in and out of a task's chat thread."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import EMPTY, ChannelMessage, FrozenJson
from harness.hooks.contexts.base import HookContext


class ChannelSentContext(HookContext):
    """The harness posts to a thread; the body returns the message as posted (with its ts)."""

    operation: ClassVar[str] = "channel.sent"
    message: ChannelMessage
    result: ChannelMessage | None = None


class ChannelReceivedContext(HookContext):
    """A message arrives from the chat; the body returns it normalised for the task."""

    operation: ClassVar[str] = "channel.received"
    message: ChannelMessage
    raw: FrozenJson = EMPTY
    result: ChannelMessage | None = None
