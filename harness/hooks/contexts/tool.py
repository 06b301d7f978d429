"""Context of one tool call, so a pre executor can veto, rewrite or hold exactly one call."""

from __future__ import annotations

from harness.domain import ApprovalDefault, HelpDecision, ToolCall, ToolResult
from harness.hooks.contexts.base import HookContext


class ToolInvokedContext(
    HookContext, operation="tool.invoked", progress=("pre", "post"), policy=("pre",)
):
    """One tool call about to run (pre), running (in), or done (post).

    ``approval`` is a person's approval of this call (or a standing one for its tool,
    ``remember``): set by the loop when it runs the call again after a pre executor
    asked (``HookAbort(ask=True)``), so the approval policy allows it. ``approvals`` is
    the task's approval default (``None``: the hooks file's).
    """

    call: ToolCall
    server: str = ""
    approval: HelpDecision | None = None
    approvals: ApprovalDefault | None = None
    result: ToolResult | None = None
