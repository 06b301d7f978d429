"""Context of one tool call, so a pre executor can veto or rewrite exactly one call."""

from __future__ import annotations

from typing import ClassVar

from harness.hooks.contexts.base import Frozen, HookContext
from harness.hooks.contexts.llm import ToolCall


class ToolResult(Frozen):
    """What a tool returned; ``is_error`` results go back to the model, not up the stack."""

    content: str = ""
    is_error: bool = False


class ToolInvokedContext(HookContext):
    """One tool call about to run (pre), running (in), or done (post)."""

    operation: ClassVar[str] = "tool.invoked"
    call: ToolCall
    server: str = ""
    result: ToolResult | None = None
