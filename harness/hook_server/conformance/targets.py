"""The executor under test, over JSON-RPC on HTTP or over MCP: fixtures in, what it did out.

A :class:`Got` names what the executor did the way the harness sees it, because a
``Call`` fixture goes through the harness's own :class:`JsonRpcExecutor` or
:class:`McpExecutor` (timeouts, reply caps and validation included); raw fixtures are
sent as they are and their replies read here. Judging a :class:`Got` against the
fixture is :mod:`.runner`'s job; neither module knows a third party's policy.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel

from harness.hook_server.conformance.fixture import Call, Fixture, RawJsonRpc, RawMcp
from harness.hooks.catalogue import split_point
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import HookAbort, HookTransportError, UnknownHookPointError
from harness.hooks.remote.jsonrpc import (
    DEFAULT_MAX_REPLY_BYTES,
    JsonRpcExecutor,
    RemoteError,
    read_reply,
)
from harness.hooks.remote.mcp import McpExecutor
from harness.hooks.remote.mcp import read_tool_result as read_hook_result
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.reply import TOOL_PREFIX
from harness.hooks.remote.signing import Signer
from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import WireError
from harness.http import AiohttpClient, HttpClientError
from harness.redaction import Redactor

GotKind = Literal[
    "pass",
    "rewrite",
    "abort",
    "error",
    "no_reply",
    "timeout",
    "too_large",
    "batch",
    "invalid",
    "transport_error",
]
"""What came back: the fixture outcomes, plus a reply out of contract and a failed call."""

_RAW_TIMEOUT: Final = 10.0
_DETAIL_CHARS: Final = 200


@dataclass(frozen=True)
class Got:
    """What the executor did with one fixture's request."""

    kind: GotKind
    detail: str = ""
    context: dict[str, Any] | None = None
    refusal: bool | None = None
    code: int | None = None


class Target(Protocol):
    """One executor under test."""

    transport: Literal["jsonrpc", "mcp"]
    endpoint: str

    async def send(self, fixture: Fixture) -> Got:
        """Send the fixture's request; never raises for anything the executor did."""
        ...

    async def aclose(self) -> None:
        """Release connections (and stop a stdio server)."""
        ...


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."


async def _through(executor: JsonRpcExecutor | McpExecutor, send: Call) -> Got:
    ctx = context_type(send.point).model_validate(send.context)
    try:
        out = await executor(ctx)
    except HookAbort as abort:
        return Got(
            "abort",
            f"abort (refusal={abort.refusal}): {_short(abort.reason)}",
            refusal=abort.refusal,
        )
    except HookTransportError as error:
        cause = error.cause
        kind: GotKind = "transport_error"
        if cause.startswith("timeout"):
            kind = "timeout"
        elif cause.startswith("too_large"):
            kind = "too_large"
        return Got(kind, _short(cause))
    if out is None:
        return Got("pass", "passed through")
    return Got("rewrite", "a replacement context", context=out.model_dump(mode="json"))


class JsonRpcTarget:
    """A JSON-RPC 2.0 executor at ``url``.

    Args:
        url: the endpoint (it is never printed unredacted by the runner).
        headers: extra headers of every request (``Authorization``).
        signing_secrets: ``whsec_`` secrets to sign every request with, Standard Webhooks.
    """

    transport: Literal["jsonrpc", "mcp"] = "jsonrpc"

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        signing_secrets: Sequence[str] = (),
    ) -> None:
        self.url = url
        self.endpoint = url
        self._headers = dict(headers or {})
        self._secrets = tuple(signing_secrets)
        self._signer = Signer(self._secrets) if self._secrets else None
        self._http = AiohttpClient()

    async def send(self, fixture: Fixture) -> Got:
        """Send ``fixture`` through a :class:`JsonRpcExecutor`, or as its raw body."""
        send = fixture.send
        if isinstance(send, Call):
            executor = JsonRpcExecutor(
                self.url,
                point=send.point,
                http=self._http,
                timeout=send.timeout,
                max_reply_bytes=send.max_reply_bytes or DEFAULT_MAX_REPLY_BYTES,
                headers=self._headers,
                signing_secrets=self._secrets,
            )
            return await _through(executor, send)
        if isinstance(send, RawJsonRpc):
            return await self._raw(send)
        return Got("invalid", "an MCP fixture cannot be sent over JSON-RPC")

    async def _raw(self, send: RawJsonRpc) -> Got:
        body = send.body.encode()
        headers = {"content-type": "application/json", **self._headers, **send.headers}
        if self._signer is not None:
            headers |= self._signer.headers(f"msg_{uuid.uuid4().hex}", body)
        try:
            resp = await self._http.post(
                self.url,
                body=body,
                headers=headers,
                timeout=_RAW_TIMEOUT,
                max_bytes=DEFAULT_MAX_REPLY_BYTES,
            )
        except HttpClientError as error:
            return Got("transport_error", _short(str(error)))
        if not 200 <= resp.status < 300:
            text = resp.body[:_DETAIL_CHARS].decode("utf-8", "replace")
            return Got("transport_error", _short(f"HTTP {resp.status}: {text}"))
        if not resp.body.strip():
            return Got("no_reply", f"HTTP {resp.status} with no body")
        ids, method, batch = _sent(send.body)
        return read_jsonrpc_reply(ids, resp.body, method, batch=batch)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._http.aclose()


def _sent(body: str) -> tuple[list[object], object, bool]:
    """What a raw body asks: its requests' ids, the (first) method, and whether it is a batch."""
    try:
        sent = json.loads(body)
    except ValueError:
        return [None], None, False  # a parse error is answered with a null id
    items = sent if isinstance(sent, list) else [sent]
    ids = [item.get("id") if isinstance(item, dict) else None for item in items]
    method = items[0].get("method") if items and isinstance(items[0], dict) else None
    return ids, method, isinstance(sent, list)


def read_jsonrpc_reply(
    ids: list[object], body: bytes, method: object = None, *, batch: bool = False
) -> Got:
    """Name a JSON-RPC reply to a request (or, with ``batch``, a batch) whose ids were ``ids``.

    A reply to one request is read by the harness's own :func:`read_reply` (strictly, the
    result as ``method``'s context when it names a hook point), so the kit calls a reply
    what the harness would; only batches, which the harness never sends, are the kit's own.
    """
    if batch:
        return _read_batch(ids, body)
    request_id = ids[0] if isinstance(ids[0], int | str) else None
    result: type[Any] = _point_context(method) or dict
    try:
        out = read_reply(body, result, request_id=request_id, redactor=_KIT_REDACTOR)
    except HookAbort as abort:
        return Got("abort", _short(f"abort: {abort.reason}"), refusal=abort.refusal)
    except RemoteError as error:
        return Got("error", _short(str(error)), code=error.error.code)
    except ReplyError as error:
        return Got("invalid", _short(str(error)))
    except ValueError:  # pydantic's: not JSON
        return Got("invalid", "reply is not JSON")
    if out is None:
        return Got("pass", "result null")
    context = out.model_dump(mode="json") if isinstance(out, BaseModel) else out
    return Got("rewrite", "a result context", context=context)


def _read_batch(ids: list[object], body: bytes) -> Got:
    try:
        batch = json.loads(body)
    except ValueError:
        return Got("invalid", "reply is not JSON")
    if isinstance(batch, list):
        got = sorted(json.dumps(item.get("id")) for item in batch if isinstance(item, dict))
        if got == sorted(json.dumps(i) for i in ids) and len(batch) == len(ids):
            return Got("batch", f"a batch of {len(batch)} replies")
        return Got("invalid", f"a batch reply with ids {got}, sent {ids}")
    return read_jsonrpc_reply(ids, body)  # one reply to a batch: -32600 is what the kit expects


def _point_context(name: object) -> type[HookContext] | None:
    """The context class of hook point ``name``, or ``None`` if it names none."""
    if not isinstance(name, str):
        return None
    try:
        operation, _ = split_point(name)
    except UnknownHookPointError:
        return None
    return context_type(operation)


_KIT_REDACTOR: Final = Redactor()


class McpTarget:
    """An MCP executor: a stdio command line, or a streamable-HTTP URL.

    Args:
        server: the URL, or the command as a sequence.
    """

    transport: Literal["jsonrpc", "mcp"] = "mcp"

    def __init__(self, server: str | Sequence[str]) -> None:
        self.connection = McpConnection(server)
        self.endpoint = self.connection.endpoint

    async def connect(self) -> None:
        """Open the session (start the server) so its start counts against no fixture.

        Raises:
            Exception: whatever spawning or the handshake raised.
        """
        await self.connection.connect()

    async def send(self, fixture: Fixture) -> Got:
        """Send ``fixture`` through an :class:`McpExecutor`, or as its raw tool call."""
        send = fixture.send
        if isinstance(send, Call):
            executor = McpExecutor(self.connection, point=send.point, timeout=send.timeout)
            return await _through(executor, send)
        if isinstance(send, RawMcp):
            return await self._raw(send)
        return Got("invalid", "a JSON-RPC fixture cannot be sent over MCP")

    async def _raw(self, send: RawMcp) -> Got:
        try:
            result = await self.connection.call_tool(
                send.tool, send.arguments, timeout=_RAW_TIMEOUT, meta=send.meta
            )
        except MCPError as error:
            return Got(
                "error",
                _short(f"protocol error {error.error.code}: {error.error.message}"),
                code=error.error.code,
            )
        except Exception as error:  # the kit reports any failure of the peer, never crashes
            return Got("transport_error", _short(f"{type(error).__name__}: {error}"))
        return read_tool_result(send.tool, result)

    async def aclose(self) -> None:
        """Close the session and stop a stdio server."""
        await self.connection.aclose()


def read_tool_result(tool: str, result: CallToolResult) -> Got:
    """Name an MCP tool ``tool``'s result as a hook reply (or an error result), reading it
    with the harness's own :func:`~harness.hooks.remote.mcp.read_tool_result`."""
    if result.is_error:
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        return Got("error", _short("isError result: " + " ".join(texts)))
    point = tool.removeprefix(TOOL_PREFIX)
    if not tool.startswith(TOOL_PREFIX) or _point_context(point) is None:
        return Got("invalid", f"a result from {tool}, which serves no hook point")
    try:
        out = read_hook_result(point, result, _KIT_REDACTOR)
    except HookAbort as abort:
        return Got("abort", _short(f"abort: {abort.reason}"), refusal=abort.refusal)
    except (ReplyError, WireError) as error:
        return Got("invalid", _short(f"not a hook reply: {error}"))
    except ValueError as error:  # pydantic's: the text block is not JSON
        return Got("invalid", _short(f"not a hook reply: {error}"))
    if out is None:
        return Got("pass", "context null")
    return Got("rewrite", "a replacement context", context=out.model_dump(mode="json"))
