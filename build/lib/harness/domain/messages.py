"""Messages as values: a chat message to or from a model, and a message in a chat channel.

Plain frozen values; the hook contexts that assemble prompts and post to threads live in
:mod:`harness.hooks.contexts.llm` and :mod:`harness.hooks.contexts.channel`.
"""

from __future__ import annotations

from typing import Literal

from harness.domain.frozen import Frozen, FrozenJson
from harness.domain.tools import ToolCall


class Message(Frozen):
    """One chat message in provider-neutral form."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    name: str = ""
    tool_call_id: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


class ChannelMessage(Frozen):
    """A message in a chat channel, in the harness's own terms."""

    channel: str
    thread: str = ""
    user: str = ""
    text: str = ""
    ts: str = ""
    blocks: tuple[FrozenJson, ...] = ()
