"""The :class:`Tool` protocol: a name, a JSON-schema'd spec, and one async call.

A tool is what the ``tool.invoked`` body runs (:mod:`harness.bodies.tool`);
hook executors see the call before and after, never the tool object. Built-in tools
live in :mod:`harness.tools.builtin` and :mod:`harness.tools.artefacts`, MCP tools
in :mod:`harness.tools.mcp`; :mod:`harness.tools.registry` holds them by name.
"""

from __future__ import annotations

from typing import Any, Protocol

from harness.domain import ToolResult, ToolSpec
from harness.tools.errors import ToolError


class Tool(Protocol):
    """One tool the model may call.

    ``requires_approval`` asks for a person's approval before each call under the
    ``safe`` approval default; ``safe`` says the tool only reads (no side effect, nothing
    leaves the worker), so the approval policy never asks about it, whatever the task's
    default (:mod:`harness.hooks.monitors.approvals`). A tool written before ``safe``
    existed is taken as not safe. ``call`` raises
    :class:`~harness.tools.errors.ToolError` for a call it refuses and
    :class:`~harness.tools.errors.ToolUnavailable` when its backend failed.
    ``task_id`` is the calling task's id, for tools that keep per-task state.
    """

    @property
    def spec(self) -> ToolSpec: ...

    @property
    def requires_approval(self) -> bool: ...

    @property
    def safe(self) -> bool: ...

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult: ...


def object_schema(
    required: dict[str, str], optional: dict[str, str] | None = None
) -> dict[str, Any]:
    """A JSON schema for an object of string/number fields: ``{"name": "string"}``."""
    fields = {**required, **(optional or {})}
    return {
        "type": "object",
        "properties": {name: {"type": kind} for name, kind in fields.items()},
        "required": sorted(required),
        "additionalProperties": False,
    }


def text_argument(
    tool: str, arguments: dict[str, Any], name: str, *, default: str | None = None
) -> str:
    """``arguments[name]`` as a string.

    Raises:
        ToolError: it is missing (and has no default) or not a string.
    """
    value = arguments.get(name, default)
    if value is None:
        raise ToolError(tool=tool, detail=f"missing argument {name!r}")
    if not isinstance(value, str):
        raise ToolError(tool=tool, detail=f"argument {name!r} must be a string")
    return value
