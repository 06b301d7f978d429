"""Built-in tools that need nothing but the worker's providers: ``echo`` and ``clock``.

Safe and deterministic by construction (``clock`` reads the injected
:class:`~harness.providers.Clock`, so tests fix it). The artefact tools are in
:mod:`harness.tools.artefacts`, the calculator in :mod:`harness.tools.calculator`.
"""

from __future__ import annotations

from typing import Any, final

from harness.domain import ToolResult, ToolSpec
from harness.providers import Clock
from harness.tools.base import object_schema, text_argument


@final
class EchoTool:
    """Returns ``text`` unchanged (the smallest tool: a probe for the loop and for hooks)."""

    requires_approval = False
    safe = True
    spec = ToolSpec(
        name="echo",
        description="Return the given text unchanged.",
        parameters=object_schema({"text": "string"}),
    )

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Echo ``arguments["text"]``."""
        return ToolResult(content=text_argument("echo", arguments, "text"))


@final
class ClockTool:
    """The current UTC time in ISO 8601, from the worker's clock provider.

    Args:
        clock: the worker's clock.
    """

    requires_approval = False
    safe = True
    spec = ToolSpec(
        name="clock",
        description="The current date and time (UTC, ISO 8601).",
        parameters=object_schema({}),
    )

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Read the clock (arguments are ignored)."""
        return ToolResult(content=self._clock.now().isoformat())
