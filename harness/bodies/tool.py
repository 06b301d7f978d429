"""Default body of tool.invoked: run the call through the :class:`~harness.tools.ToolRegistry`.

Also the loop's view of a registry (:func:`catalogue_of`): what the model is offered,
which tools need approval and which only read.
"""

from __future__ import annotations

from typing import Self, final

from harness.agent.state import ASK_HUMAN, ToolCatalogue
from harness.bodies.marker import Bodies, Wiring, body
from harness.hooks.contexts import ToolInvokedContext
from harness.tools import ToolRegistry


def catalogue_of(tools: ToolRegistry) -> ToolCatalogue:
    """The loop's view of a registry: every spec, the names that need approval, the safe ones.

    A tool without ``safe`` (written before it existed) is not safe; ``ask_human`` (the
    loop's own, not the registry's) is.
    """
    names = tools.names
    approval = tuple(n for n in names if (tool := tools.get(n)) and tool.requires_approval)
    safe = (*(n for n in names if getattr(tools.get(n), "safe", False) is True), ASK_HUMAN)
    return ToolCatalogue(specs=tools.specs(), approval=approval, safe=safe)


@final
class ToolBodies(Bodies):
    """The tool call's body.

    Args:
        tools: the worker's tools.
    """

    def __init__(self, *, tools: ToolRegistry) -> None:
        self.tools = tools

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(tools=wiring.deps.tools)

    @body(ToolInvokedContext)
    async def tool_invoked(self, ctx: ToolInvokedContext) -> ToolInvokedContext:
        """Run the (possibly rewritten) call; a refused call is an ``is_error`` result."""
        task_id = ctx.task.task_id if ctx.task else ""
        result = await self.tools.invoke(ctx.call, task_id=task_id)
        return ctx.model_copy(update={"result": result})
