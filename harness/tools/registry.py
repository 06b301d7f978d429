"""ToolRegistry: the tools a worker offers, by name, and the one way a call is run.

The registry turns a :class:`~harness.domain.ToolCall` into a
:class:`~harness.domain.ToolResult`: an unknown tool, arguments that break the tool's
schema (:mod:`harness.tools.arguments`) or a refused call is an ``is_error`` result for
the model to read; a backend failure
(:class:`~harness.tools.errors.ToolUnavailable`) propagates so the operation is retried.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import final

from harness.domain import ToolCall, ToolResult, ToolSpec
from harness.tools.arguments import ArgumentsCheck
from harness.tools.base import Tool
from harness.tools.errors import ToolError, ToolUnavailable


@final
class ToolRegistry:
    """Tools by name; adding a second tool with a taken name is an error.

    Args:
        tools: the initial tools.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._checks: dict[str, ArgumentsCheck] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        """Register ``tool``.

        Raises:
            ValueError: a tool of the same name is registered.
        """
        name = tool.spec.name
        if name in self._tools:
            raise ValueError(f"tool {name!r} is already registered")
        self._tools[name] = tool
        self._checks[name] = ArgumentsCheck(name, tool.spec.parameters)

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if any."""
        return self._tools.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        """Every tool's name, in registration order."""
        return tuple(self._tools)

    def specs(self, names: Iterable[str] | None = None) -> tuple[ToolSpec, ...]:
        """Specs of the named tools (unknown names skipped), or of all tools."""
        wanted = self._tools if names is None else [n for n in names if n in self._tools]
        return tuple(self._tools[n].spec for n in wanted)

    async def invoke(self, call: ToolCall, *, task_id: str = "") -> ToolResult:
        """Run ``call`` for task ``task_id``.

        Raises:
            ToolUnavailable: the tool's backend failed; retrying the operation may help.
        """
        tool = self._tools.get(call.name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolResult(content=f"unknown tool {call.name!r}; tools: {known}", is_error=True)
        problems = self._checks[call.name].problems(call.arguments)
        if problems:  # the model broke the schema it was offered: say what, run nothing
            text = f"arguments do not match the schema of tool {call.name!r}:\n{problems}"
            return ToolResult(content=text, is_error=True)
        try:
            return await tool.call(dict(call.arguments), task_id=task_id)
        except ToolUnavailable:
            raise
        except ToolError as error:
            return ToolResult(content=str(error), is_error=True)

    def __repr__(self) -> str:
        return f"<ToolRegistry {', '.join(self._tools)}>"
