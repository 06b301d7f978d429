"""Tool calls as values: a call the model asked for, a tool offered to it, what a tool returned.

Plain frozen values; running a tool (and its hooks) is :mod:`harness.tools` and
:mod:`harness.hooks.contexts.tool`.
"""

from __future__ import annotations

from harness.domain.frozen import EMPTY, Frozen, FrozenJson


class ToolCall(Frozen):
    """One call the model asked for."""

    id: str
    name: str
    arguments: FrozenJson = EMPTY


class ToolSpec(Frozen):
    """A tool offered to the model: name, description, JSON schema of its arguments."""

    name: str
    description: str = ""
    parameters: FrozenJson = EMPTY


class ToolResult(Frozen):
    """What a tool returned; ``is_error`` results go back to the model, not up the stack."""

    content: str = ""
    is_error: bool = False
