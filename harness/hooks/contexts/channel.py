"""Contexts of every message in and out of a task's chat thread."""

from __future__ import annotations

from harness.domain import EMPTY, ChannelMessage, FrozenJson
from harness.hooks.contexts.base import HookContext


class ChannelSentContext(HookContext, operation="channel.sent", local=True, progress=("post",)):
    """The harness posts to a thread; the body returns the message as posted (with its ts)."""

    message: ChannelMessage
    result: ChannelMessage | None = None


class ChannelReceivedContext(HookContext, operation="channel.received", local=True):
    """A message arrives from the chat; the body returns it normalised for the task."""

    message: ChannelMessage
    raw: FrozenJson = EMPTY
    result: ChannelMessage | None = None
