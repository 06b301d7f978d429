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

from harness.hook_server.conformance.fixture import Call, Fixture, RawJsonRpc, RawMcp
from harness.hooks.contexts import context_type
from harness.hooks.errors import HookAbort, HookTransportError
from harness.hooks.remote.jsonrpc import DEFAULT_MAX_REPLY_BYTES, JsonRpcExecutor
from harness.hooks.remote.mcp import McpExecutor
from harness.hooks.remote.mcp_connection import McpConnection
from harness.hooks.remote.reply import HookReply
from harness.hooks.remote.signing import Signer
from harness.hooks.remote.wire import ABORT, RpcError, abort_of
from harness.http import AiohttpClient, HttpClientError

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
        try:
            reply = json.loads(resp.body)
        except ValueError:
            return Got("invalid", "reply is not JSON")
        return read_jsonrpc_reply(_request_ids(send.body), reply)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._http.aclose()


def _request_ids(body: str) -> list[object]:
    try:
        sent = json.loads(body)
    except ValueError:
        return [None]  # a parse error is answered with a null id
    items = sent if isinstance(sent, list) else [sent]
    return [item.get("id") if isinstance(item, dict) else None for item in items]


def read_jsonrpc_reply(ids: list[object], reply: object) -> Got:
    """Name a parsed JSON-RPC reply to a request (or batch) whose ids were ``ids``."""
    if isinstance(reply, list):
        got = sorted(json.dumps(item.get("id")) for item in reply if isinstance(item, dict))
        if got == sorted(json.dumps(i) for i in ids) and len(reply) == len(ids):
            return Got("batch", f"a batch of {len(reply)} replies")
        return Got("invalid", f"a batch reply with ids {got}, sent {ids}")
    if not isinstance(reply, dict) or reply.get("jsonrpc") != "2.0":
        return Got("invalid", _short(f"not a JSON-RPC 2.0 reply: {json.dumps(reply)}"))
    error = reply.get("error")
    if isinstance(error, dict) and isinstance(error.get("code"), int):
        return _error_got(error)
    if "result" not in reply or error is not None:
        return Got("invalid", "a reply with neither result nor error object")
    if reply.get("id") != ids[0]:
        return Got("invalid", f"reply id {reply.get('id')!r} does not echo {ids[0]!r}")
    if reply["result"] is None:
        return Got("pass", "result null")
    if isinstance(reply["result"], dict):
        return Got("rewrite", "a result context", context=reply["result"])
    return Got("invalid", "result is neither null nor an object")


def _error_got(error: dict[str, Any]) -> Got:
    code: int = error["code"]
    text = f"error {code}: {error.get('message', '')}"
    if code == ABORT:
        abort = abort_of(
            RpcError(code=code, message=str(error.get("message", "")), data=error.get("data"))
        )
        if abort is not None:
            return Got("abort", _short(text), refusal=abort.refusal)
    return Got("error", _short(text), code=code)


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
        return read_tool_result(result)

    async def aclose(self) -> None:
        """Close the session and stop a stdio server."""
        await self.connection.aclose()


def read_tool_result(result: CallToolResult) -> Got:
    """Name an MCP tool result as a hook reply (or an error result)."""
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    if result.is_error:
        return Got("error", _short("isError result: " + " ".join(texts)))
    payload: object = result.structured_content
    try:
        if payload is None and len(texts) == 1:
            reply = HookReply.model_validate_json(texts[0])
        else:
            reply = HookReply.model_validate(payload)
    except ValueError as error:
        return Got("invalid", _short(f"not a hook reply: {error}"))
    if reply.abort is not None:
        return Got("abort", _short(f"abort: {reply.abort.reason}"), refusal=reply.abort.refusal)
    if reply.context is None:
        return Got("pass", "context null")
    return Got("rewrite", "a replacement context", context=reply.context)
