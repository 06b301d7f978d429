"""JsonRpcExecutor: a hook executor served by another process over JSON-RPC 2.0 on HTTP.

It adapts the wire (:mod:`harness.hooks.remote.wire`) to the executor shape: the
request is ``{"method": <point>, "params": {"context": ...}}`` and the result is a
replacement context or null. HTTP itself is a provider (:mod:`harness.http`); the
server side helper is :mod:`harness.hook_server.jsonrpc`.

Failures are never passed through: anything but a conforming reply raises
``HookTransportError`` (DESIGN.md, "Remote executors"), except the one error the
remote sends on purpose to veto, code :data:`~harness.hooks.remote.wire.ABORT`,
which becomes ``HookAbort``.
"""

from __future__ import annotations

import itertools
import ssl as _ssl
from collections.abc import Mapping, Sequence
from typing import Final, TypeVar, final

from harness.hooks.catalogue import split_point
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.remote.reply import as_abort
from harness.hooks.remote.signing import Signer, message_id
from harness.hooks.remote.trace_context import trace_context
from harness.hooks.remote.wire import (
    SCHEMA_HEADER,
    SCHEMA_VERSION,
    RequestId,
    RpcError,
    RpcFailure,
    WireError,
    abort_of,
    describe_error,
    encode_request,
    map_transport_errors,
    read_response,
)
from harness.providers import HttpClient, HttpResponse
from harness.redaction import Redactor

ResultT = TypeVar("ResultT")

DEFAULT_TIMEOUT: Final = 5.0
DEFAULT_MAX_REPLY_BYTES: Final = 1 << 20
_SNIPPET_CHARS: Final = 200


@final
class JsonRpcExecutor:
    """Calls a remote JSON-RPC 2.0 server for one hook point.

    The point is given at construction, not learned at registration, because the
    manager hands executors only the context: register the executor at the point it
    was built for. A context of another operation's type is refused with
    ``HookTransportError`` before anything is sent.

    Args:
        url: the server's endpoint; it may carry a token, so it is redacted wherever shown.
        point: the hook point served, ``<operation>.<phase>``; also the JSON-RPC method.
        http: the HTTP client provider; when omitted the executor makes an
            :class:`~harness.http.AiohttpClient` and closes it in :meth:`aclose`.
        timeout: seconds for the whole call, connect to last byte.
        max_reply_bytes: largest reply accepted.
        headers: extra request headers (e.g. ``Authorization``).
        name: how logs, errors and abort records name this executor.
        redactor: scrubs endpoint and error text (an abort's reason is the manager's to scrub).
        idempotency_header: send ``Idempotency-Key: <idempotency key>#<point>`` with every
            call, for a server whose effect must not repeat: the key is the same on every
            retry of the operation and every re-run after a lost worker.
        signing_secrets: ``whsec_`` secrets; when given, every request carries Standard
            Webhooks ``webhook-id``/``-timestamp``/``-signature`` headers, one signature
            per secret (:mod:`.signing`). The id is the same on every retry of the call.
        ssl: the TLS context of an ``https`` URL (client certificate, private CA) for the
            client this executor makes; a given ``http`` brings its own.

    Raises:
        UnknownHookPointError: ``point`` is not in the catalogue.
        ValueError: ``timeout`` or ``max_reply_bytes`` is not positive, or ``ssl`` comes
            with an ``http`` client.
        SignatureError: a signing secret is not ``whsec_<base64>``.
    """

    def __init__(
        self,
        url: str,
        *,
        point: str,
        http: HttpClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        headers: Mapping[str, str] | None = None,
        name: str | None = None,
        redactor: Redactor | None = None,
        idempotency_header: bool = False,
        signing_secrets: Sequence[str] = (),
        ssl: _ssl.SSLContext | None = None,
    ) -> None:
        operation, _ = split_point(point)
        if timeout <= 0 or max_reply_bytes <= 0:
            raise ValueError("timeout and max_reply_bytes must be positive")
        if ssl is not None and http is not None:
            raise ValueError("pass ssl to the http client you give, not to the executor")
        self.url = url
        self.point = point
        self.context_type = context_type(operation)
        self.timeout = timeout
        self.max_reply_bytes = max_reply_bytes
        self._http: HttpClient = http if http is not None else _default_client(ssl)
        self._owns_http = http is None
        self._headers = {
            "content-type": "application/json",
            SCHEMA_HEADER: SCHEMA_VERSION,
            **(headers or {}),
        }
        self._idempotency_header = idempotency_header
        self._signer = Signer(signing_secrets) if signing_secrets else None
        self._redactor = redactor or Redactor()
        self.endpoint = self._redactor.redact_text(url)
        self.name = name or f"jsonrpc:{self.endpoint}#{point}"
        # Unique per executor, which is what JSON-RPC needs: the reply must echo our id.
        self._ids = itertools.count(1)

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Send ``ctx`` to the remote and return its replacement, or ``None`` to pass through.

        Raises:
            HookAbort: the remote vetoed (error code ``ABORT`` with an ``abort`` payload).
            HookTransportError: anything else that is not a conforming reply: timeout,
                refused or reset connection, non-2xx status (a 3xx is never followed), a
                body that is not JSON,
                a wrong ``jsonrpc`` version or ``id``, an ``error`` object, a result that
                is not a valid context for the point, a reply over the size cap.
        """
        request_id = next(self._ids)
        with map_transport_errors(self.point, self.endpoint, self._redactor):
            if type(ctx) is not self.context_type:
                raise WireError(
                    f"executor serves {self.point} ({self.context_type.__name__}) but was "
                    f"given a {type(ctx).__name__}; register it at the point it was built for"
                )
            body = encode_request(request_id, self.point, {"context": ctx})
            headers = self._headers
            if self._idempotency_header:
                headers = {**headers, "idempotency-key": f"{ctx.idempotency_key}#{self.point}"}
            if self._signer is not None:
                msg_id = message_id(ctx.idempotency_key, self.point)
                headers = {**headers, **self._signer.headers(msg_id, body)}
            traced = trace_context()  # the decision span's traceparent, when tracing
            if traced is not None:
                headers = {**headers, **traced}
            resp = await self._http.post(
                self.url,
                body=body,
                headers=headers,
                timeout=self.timeout,
                max_bytes=self.max_reply_bytes,
            )
            if not 200 <= resp.status < 300:
                raise WireError(_describe_status(resp))
            return read_reply(resp.body, self.context_type, request_id=request_id)

    async def aclose(self) -> None:
        """Close the HTTP client if this executor made it; a given one stays the caller's."""
        if self._owns_http:
            await self._http.aclose()

    def __repr__(self) -> str:
        return f"<JsonRpcExecutor {self.point} -> {self.endpoint}>"


class RemoteError(WireError):
    """The remote answered with an error object (not an abort): it failed, and said so."""

    def __init__(self, error: RpcError) -> None:
        self.error = error
        super().__init__(describe_error(error))


def read_reply(
    body: bytes | str, result: type[ResultT], *, request_id: RequestId | None
) -> ResultT | None:
    """What the harness makes of a JSON-RPC reply: the replacement, or ``None`` to pass through.

    The executor reads every reply with it, and so does the conformance kit, so a kit
    verdict is the harness's (:func:`~harness.hooks.remote.wire.read_response` reads the
    envelope strictly).

    Args:
        body: the reply as received.
        result: what a result must be, the point's context class.
        request_id: the request's id, which a result must echo.

    Raises:
        HookAbort: the remote vetoed (error ``ABORT`` with an ``abort`` payload).
        RemoteError: the remote answered with another error object.
        ReplyError: the reply is out of contract (the fields are named).
        ValidationError: it is not JSON.
    """
    reply = read_response(body, result, request_id=request_id)
    if isinstance(reply, RpcFailure):
        abort = abort_of(reply.error)
        if abort is not None:
            raise as_abort(abort)
        raise RemoteError(reply.error)
    return reply.result


def _describe_status(resp: HttpResponse) -> str:
    if 300 <= resp.status < 400:
        where = resp.headers.get("location", "no Location")
        return (
            f"HTTP {resp.status} redirect to {where}: remote executors do not follow "
            "redirects; configure the final URL"
        )
    kind = resp.headers.get("content-type", "no content-type")
    text = " ".join(resp.body[: _SNIPPET_CHARS * 4].decode("utf-8", "replace").split())
    if len(text) > _SNIPPET_CHARS:
        text = text[:_SNIPPET_CHARS] + "..."
    return f"HTTP {resp.status} ({kind}): {text or '<empty body>'}"


def _default_client(ssl: _ssl.SSLContext | None) -> HttpClient:
    # aiohttp loads with the first executor that makes its own client, not with the import.
    from harness.http.aiohttp_client import AiohttpClient

    return AiohttpClient(ssl=ssl)
