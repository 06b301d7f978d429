"""Errors of tools: the model's fault (told to the model) versus the tool's (retried).

::

    HarnessError
    └── ToolError                 a call the tool refuses: bad arguments, unknown tool.
        │                         Becomes an ``is_error`` ToolResult the model reads;
        │                         if one escapes the registry it is not retried.
        └── ToolUnavailable       the tool's backend failed (an MCP server gone, a
                                  timeout). Fails the ``tool.invoked`` operation, so
                                  the workflow's retry path runs.
"""

from __future__ import annotations

from harness.errors import HarnessError


class ToolError(HarnessError):
    """A call the tool cannot perform as asked.

    Args:
        tool: the tool's name.
        detail: what was wrong, written for the model to correct its call.
    """

    def __init__(self, *, tool: str, detail: str) -> None:
        self.tool = tool
        self.detail = detail
        super().__init__(f"{tool}: {detail}")

    @property
    def retryable(self) -> bool:
        """No: the same call fails the same way (bad arguments, unknown tool)."""
        return False


class ToolUnavailable(ToolError):
    """The tool could not be reached or did not answer; trying again may help."""

    @property
    def retryable(self) -> bool:
        """Yes: the backend may be back on the next attempt."""
        return True
