"""An MCP tool result's flag read as strictly as the reply it carries.

The MCP SDK validates a server's result leniently, so ``"isError": "false"`` (or ``0``)
would reach the executor as ``False`` and an error reply would pass as an answer. A
remote is hostile input (:mod:`.strict`), so every message the session receives is
looked at first: a response whose ``isError`` is there but not a JSON boolean becomes an
error response to the same request, naming the field, and the SDK raises it as such.
The reply object itself is read by :func:`~harness.hooks.remote.reply.decode_reply`.
"""

from __future__ import annotations

from typing import Final

from mcp.shared.message import SessionMessage
from mcp_types import ErrorData, JSONRPCError, JSONRPCResponse

from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import INTERNAL_ERROR

NOT_A_FLAG: Final = str(
    ReplyError(title="CallToolResult", problems=[("isError", "Input should be a valid boolean")])
)
"""What the caller is told about a result whose ``isError`` is not a boolean."""


def checked(item: SessionMessage | Exception) -> SessionMessage | Exception:
    """``item`` as received, or an error response in place of a result with a non-boolean
    ``isError`` (only a tool result has that member)."""
    if not isinstance(item, SessionMessage) or not isinstance(item.message, JSONRPCResponse):
        return item
    flag = item.message.result.get("isError", False)
    if isinstance(flag, bool):
        return item
    error = ErrorData(code=INTERNAL_ERROR, message=NOT_A_FLAG)
    refused = JSONRPCError(jsonrpc="2.0", id=item.message.id, error=error)
    return SessionMessage(message=refused, metadata=item.metadata)
