"""Context of one tool call, so a pre executor can veto or rewrite exactly one call."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import ToolCall, ToolResult
from harness.hooks.contexts.base import HookContext


class ToolInvokedContext(HookContext):
    """One tool call about to run (pre), running (in), or done (post)."""

    operation: ClassVar[str] = "tool.invoked"
    call: ToolCall
    server: str = ""
    result: ToolResult | None = None
