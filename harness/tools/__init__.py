"""Tools the agent can call: the :class:`Tool` protocol, a registry, built-ins and MCP tools.

MCP tools (:mod:`harness.tools.mcp`) load the MCP SDK; import them from that module
when configured, so a worker without MCP tool servers does not pay for it.
"""

from __future__ import annotations

from harness.providers import Clock
from harness.storage.artefacts import ArtefactStore
from harness.tools.artefacts import ReadArtefactTool, WriteArtefactTool
from harness.tools.base import Tool
from harness.tools.builtin import ClockTool, EchoTool
from harness.tools.calculator import CalculatorTool
from harness.tools.errors import ToolError, ToolUnavailable
from harness.tools.registry import ToolRegistry


def builtin_tools(*, clock: Clock, store: ArtefactStore) -> list[Tool]:
    """The built-in tools: echo, clock, calculator, read_artefact, write_artefact."""
    return [
        EchoTool(),
        ClockTool(clock),
        CalculatorTool(),
        ReadArtefactTool(store),
        WriteArtefactTool(store),
    ]


__all__ = [
    "CalculatorTool",
    "ClockTool",
    "EchoTool",
    "ReadArtefactTool",
    "Tool",
    "ToolError",
    "ToolRegistry",
    "ToolUnavailable",
    "WriteArtefactTool",
    "builtin_tools",
]
