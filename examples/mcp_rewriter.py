"""An MCP hook server that confines every ``path`` argument of a tool call to /workspace.

Registered at ``tool.invoked.pre``, it rewrites ``{"path": "/etc/passwd"}`` to
``{"path": "/workspace/etc/passwd"}`` (``..`` cannot climb out) and lets calls
without a ``path`` through untouched. Run it as::

    python examples/mcp_rewriter.py                     # stdio
    python examples/mcp_rewriter.py --http --port 8765  # streamable HTTP at /mcp

and point the harness at it::

    McpExecutor([sys.executable, "examples/mcp_rewriter.py"], point="tool.invoked.pre")
    McpExecutor("http://127.0.0.1:8765/mcp", point="tool.invoked.pre")
"""

from __future__ import annotations

import posixpath

from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote import serve_from_command_line

ROOT = "/workspace"


def confine_path(ctx: ToolInvokedContext) -> ToolInvokedContext | None:
    """Rewrite the call's ``path`` argument to lie under /workspace."""
    path = ctx.call.arguments.get("path")
    if not isinstance(path, str):
        return None
    normal = posixpath.normpath("/" + path.lstrip("/"))  # absolute, with every ".." resolved
    inside = normal == ROOT or normal.startswith(ROOT + "/")
    confined = normal if inside else posixpath.normpath(posixpath.join(ROOT, normal.lstrip("/")))
    if confined == path:
        return None
    arguments = {**ctx.call.arguments, "path": confined}
    return ctx.model_copy(update={"call": ctx.call.model_copy(update={"arguments": arguments})})


if __name__ == "__main__":
    serve_from_command_line({"tool.invoked.pre": confine_path}, name="mcp-rewriter")
