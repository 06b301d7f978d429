"""The executor under test over JSON-RPC 2.0 on HTTP: fixtures in, what the harness would see out.

A ``Call`` fixture goes through the harness's :class:`JsonRpcExecutor` and executor loop
(:func:`.targets.through`); a raw body is posted as it is and its reply read with the
executor's own :func:`~harness.hooks.remote.jsonrpc.read_reply` (strictly: a field of the
wrong JSON type is refused by name); a ``signature`` fixture is signed as the harness
signs, or deliberately not (unsigned, tampered, stale), to see that the executor verifies
what it is sent.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Final, Literal

from pydantic import ValidationError

from harness.hook_server.conformance.fixture import Call, Fixture, RawJsonRpc, Signed
from harness.hook_server.conformance.targets import (
    RAW_TIMEOUT,
    Got,
    aborted,
    replaced,
    short,
    through,
)
from harness.hooks.catalogue import split_point
from harness.hooks.contexts import ToolInvokedContext, context_type
from harness.hooks.errors import HookAbort
from harness.hooks.remote.jsonrpc import (
    DEFAULT_MAX_REPLY_BYTES,
    JsonRpcExecutor,
    RemoteError,
    read_reply,
)
from harness.hooks.remote.signing import Signer, message_id
from harness.hooks.remote.strict import ReplyError
from harness.hooks.remote.wire import SCHEMA_HEADER, SCHEMA_VERSION, encode_request
from harness.http import AiohttpClient, HttpClientError

STALE_SECONDS: Final = 3600
"""How old a ``stale`` fixture's timestamp is: far past any sane tolerance (ours is 300 s)."""

_DETAIL_BYTES: Final = 200
_FALLBACK_OPERATION: Final = ToolInvokedContext.operation
"""The context a reply to a body whose method is no hook point is read as."""


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

    @property
    def signs(self) -> bool:
        """Whether requests are signed (the ``signature`` fixtures need it)."""
        return self._signer is not None

    async def send(self, fixture: Fixture) -> Got:
        """Send ``fixture`` through a :class:`JsonRpcExecutor`, as its raw body, or signed."""
        send = fixture.send
        if isinstance(send, Call):
            return await self._call(send, send.timeout, send.max_reply_bytes)
        if isinstance(send, Signed):
            return await self._signed(send)
        if isinstance(send, RawJsonRpc):
            return await self._raw(send)
        return Got("invalid", "an MCP fixture cannot be sent over JSON-RPC")

    async def _call(self, send: Call, timeout: float, max_reply_bytes: int | None) -> Got:
        executor = JsonRpcExecutor(
            self.url,
            point=send.point,
            http=self._http,
            timeout=timeout,
            max_reply_bytes=max_reply_bytes or DEFAULT_MAX_REPLY_BYTES,
            headers=self._headers,
            signing_secrets=self._secrets,
        )
        return await through(executor, executor.name, send)

    async def _signed(self, send: Signed) -> Got:
        if self._signer is None:
            return Got("invalid", "a signature fixture needs the executor's secret (--secret-env)")
        if send.signature == "valid":  # exactly as the harness sends it
            return await self._call(Call(point=send.point, context=send.context), RAW_TIMEOUT, None)
        ctx = context_type(send.point).model_validate(send.context, strict=False)  # our own
        body = encode_request(1, send.point, {"context": ctx})
        headers = {"content-type": "application/json", SCHEMA_HEADER: SCHEMA_VERSION}
        headers |= self._headers
        msg_id = message_id(ctx.idempotency_key, send.point)
        if send.signature == "stale":
            headers |= self._signer.headers(msg_id, body, now=time.time() - STALE_SECONDS)
        elif send.signature == "tampered":  # signed, then another probe sent under it
            headers |= self._signer.headers(msg_id, body)
            changed = ctx.model_copy(update={"correlation_id": ctx.correlation_id + "-tampered"})
            body = encode_request(1, send.point, {"context": changed})
        return await self._post(body, headers, [1], send.point, batch=False)

    async def _raw(self, send: RawJsonRpc) -> Got:
        body = send.body.encode()
        headers = {"content-type": "application/json", **self._headers, **send.headers}
        if self._signer is not None:
            headers |= self._signer.headers(f"msg_{uuid.uuid4().hex}", body)
        ids, point, batch = _request_of(send.body)
        return await self._post(body, headers, ids, point, batch=batch)

    async def _post(
        self, body: bytes, headers: dict[str, str], ids: list[object], point: str, *, batch: bool
    ) -> Got:
        try:
            resp = await self._http.post(
                self.url,
                body=body,
                headers=headers,
                timeout=RAW_TIMEOUT,
                max_bytes=DEFAULT_MAX_REPLY_BYTES,
            )
        except HttpClientError as error:
            return Got("transport_error", short(str(error)))
        if not 200 <= resp.status < 300:
            text = resp.body[:_DETAIL_BYTES].decode("utf-8", "replace")
            kind: Literal["unauthorized", "transport_error"] = (
                "unauthorized" if resp.status == 401 else "transport_error"
            )
            return Got(kind, short(f"HTTP {resp.status}: {text}"))
        if not resp.body.strip():
            return Got("no_reply", f"HTTP {resp.status} with no body")
        return read_jsonrpc_reply(ids, resp.body, point, batch=batch)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._http.aclose()


def _request_of(body: str) -> tuple[list[object], str, bool]:
    """The ids a body's requests carry (one per batch item), the point of its first, and
    whether it is a batch."""
    try:
        sent = json.loads(body)
    except ValueError:
        return [None], _FALLBACK_OPERATION, False  # a parse error is answered with a null id
    items = sent if isinstance(sent, list) else [sent]
    ids = [item.get("id") if isinstance(item, dict) else None for item in items]
    first = items[0] if items and isinstance(items[0], dict) else {}
    method = first.get("method")
    point = method if isinstance(method, str) else _FALLBACK_OPERATION
    return ids, point, isinstance(sent, list)


def read_jsonrpc_reply(ids: list[object], body: bytes, point: str, *, batch: bool = False) -> Got:
    """Name a reply to a request (or, with ``batch``, a batch) whose ids were ``ids``, as the
    harness reads it.

    A single reply is read by the harness's own :func:`read_reply` with ``point``'s context (a
    method that is no hook point reads it as a ``tool.invoked`` one); batches, which the
    harness never sends, are only checked to answer every id (one reply to a batch is read
    as a single reply: ``-32600`` is what the kit expects).
    """
    try:
        reply = json.loads(body)
    except ValueError:
        return Got("invalid", "reply is not JSON")
    if batch and isinstance(reply, list):
        got = sorted(json.dumps(item.get("id")) for item in reply if isinstance(item, dict))
        if got == sorted(json.dumps(i) for i in ids) and len(reply) == len(ids):
            return Got("batch", f"a batch of {len(reply)} replies")
        return Got("invalid", f"a batch reply with ids {got}, sent {ids}")
    try:
        operation, _ = split_point(point)
    except ValueError:  # UnknownHookPointError: a method sent to be refused
        operation = _FALLBACK_OPERATION
    rid = ids[0] if isinstance(ids[0], int | str) else None
    try:
        out = read_reply(body, context_type(operation), request_id=rid)
    except HookAbort as abort:
        return aborted(abort)
    except RemoteError as error:
        return Got("error", short(str(error)), code=error.error.code)
    except ReplyError as error:
        return Got("invalid", short(f"the harness cannot read it: {error}"))
    except ValidationError:  # read_reply's when the body is not JSON; json.loads read it
        return Got("invalid", "reply is not JSON")
    return replaced(None, out)
