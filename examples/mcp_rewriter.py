"""An MCP hook server that turns the artefact names a model invents into ones the tools take.

Registered at ``tool.invoked.pre`` for ``read_artefact`` and ``write_artefact``, it
rewrites ``{"name": "Notes/Plan v2.md"}`` to ``{"name": "plan-v2.md"}``: the last path
part, lower case, spaces as ``-``, only letters, digits, ``.``, ``_`` and ``-``. The
tools refuse other names (no slashes, no ``..``), so the agent's call succeeds instead of
failing. Calls of other tools, and names already plain, pass through untouched. Run it::

    python examples/mcp_rewriter.py                     # stdio (hooks.toml starts it so)
    python examples/mcp_rewriter.py --http --port 8766  # streamable HTTP at /mcp

and point the harness at it (``examples/hooks.toml`` does the first)::

    McpExecutor([sys.executable, "examples/mcp_rewriter.py"], point="tool.invoked.pre")
    McpExecutor("http://127.0.0.1:8766/mcp", point="tool.invoked.pre")
"""

from __future__ import annotations

import re

from harness.hook_server import serve_from_command_line
from harness.hooks.contexts import ToolInvokedContext

TOOLS = frozenset({"read_artefact", "write_artefact"})


def plain_name(name: str) -> str:
    """``Notes/Plan v2.md`` -> ``plan-v2.md``; ``""`` when nothing usable is left."""
    last = re.split(r"[\\/]", name.strip())[-1].lower()
    return re.sub(r"[^a-z0-9._-]", "", re.sub(r"\s+", "-", last)).lstrip(".-")


def plain_artefact_names(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """Rewrite the ``name`` argument of an artefact tool call to a plain file name."""
    name = ctx.call.arguments.get("name")
    if ctx.call.name not in TOOLS or not isinstance(name, str):
        return None
    plain = plain_name(name)
    if not plain or plain == name:
        return None  # nothing to fix, or nothing left: the tool says what is wrong
    arguments = {**ctx.call.arguments, "name": plain}
    return ctx.model_copy(update={"call": ctx.call.model_copy(update={"arguments": arguments})})


if __name__ == "__main__":
    serve_from_command_line({"tool.invoked.pre": plain_artefact_names}, name="mcp-rewriter")
