"""Server side of :class:`~harness.hooks.remote.jsonrpc.JsonRpcExecutor`: functions in, app out.

So a remote executor is a few lines: plain functions keyed by hook point, each taking
the typed context and returning a replacement or ``None``, raising ``HookAbort`` to
veto. It speaks the wire of :mod:`harness.hooks.remote.wire`; it does not run a chain
(one function per point) and does not redact (the calling harness does, both ways).
The conformance kit's probes are answered by :mod:`.profile` at every point,
never by the handlers, and a request naming another schema version is refused.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, TypeAlias

from aiohttp import web

from harness.hook_server.profile import answer_probe, is_probe
from harness.hooks.catalogue import points, split_point
from harness.hooks.contexts import HookContext, context_type
from harness.hooks.errors import HookAbort
from harness.hooks.remote.schema_version import version_problem
from harness.hooks.remote.signing import (
    DEFAULT_TOLERANCE,
    SignatureError,
    Verifier,
    decode_secret,
)
from harness.hooks.remote.wire import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    SCHEMA_HEADER,
    RpcError,
    abort_error,
    decode_params,
    decode_request,
    encode_error,
    encode_result,
)

log = logging.getLogger(__name__)

# ``Any`` in, so a handler may annotate its parameter with its own context class.
Handler: TypeAlias = (
    Callable[[Any], Awaitable[HookContext | None]] | Callable[[Any], HookContext | None]
)

_JSON: Final = "application/json"


class JsonRpcDispatcher:
    """Turns one JSON-RPC request body into one response body; no HTTP in it.

    Args:
        handlers: a function per hook point; sync or async.

    Raises:
        UnknownHookPointError: a key is not a point of the catalogue (at construction,
            so a typo fails when the server starts, not on the first call).
    """

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._table: dict[str, tuple[type[HookContext], Handler]] = {}
        for point, handler in handlers.items():
            operation, _ = split_point(point)
            self._table[point] = (context_type(operation), handler)

    async def dispatch(self, body: bytes, *, schema_version: str | None = None) -> bytes | None:
        """The response to ``body``, or ``None`` for a notification (a request without id).

        A handler's ``HookAbort`` becomes the ``ABORT`` error (the veto convention of
        :mod:`harness.hooks.remote.wire`); any other exception becomes ``INTERNAL_ERROR``
        with its text, which the caller redacts. A conformance probe at any point of the
        catalogue is answered by the profile instead of a handler.

        Args:
            body: the request as received.
            schema_version: the version the request names (its ``SCHEMA_HEADER``); another
                than ours is refused with ``INVALID_REQUEST``, none is accepted.
        """
        request = decode_request(body)
        if isinstance(request, RpcError):
            return encode_error(None, request)
        rid = request.id
        problem = version_problem(schema_version, where=SCHEMA_HEADER)
        if problem is not None:
            return encode_error(rid, RpcError(code=INVALID_REQUEST, message=problem))
        entry = self._table.get(request.method)
        if is_probe(request.params.get("context")) and request.method in points():
            entry = (context_type(request.method), answer_probe)
        if entry is None:
            known = ", ".join(sorted(self._table)) or "none"
            error = RpcError(
                code=METHOD_NOT_FOUND,
                message=f"Method not found: {request.method!r} (served: {known})",
            )
            return encode_error(rid, error)
        cls, handler = entry
        ctx = decode_params(cls, request.params.get("context"))
        if isinstance(ctx, RpcError):
            return encode_error(rid, ctx)
        try:
            out = handler(ctx)
            if inspect.isawaitable(out):
                out = await out
        except HookAbort as abort:
            return encode_error(
                rid,
                abort_error(
                    abort.reason,
                    refusal=abort.refusal,
                    ask=abort.ask,
                    timeout_seconds=abort.timeout_seconds,
                ),
            )
        except Exception as exc:
            log.exception("handler for %s failed", request.method)
            text = f"{type(exc).__name__}: {exc}"
            return encode_error(rid, RpcError(code=INTERNAL_ERROR, message=text))
        if out is not None and type(out) is not cls:
            text = f"handler returned {type(out).__name__}, expected {cls.__name__} or None"
            return encode_error(rid, RpcError(code=INTERNAL_ERROR, message=text))
        if "id" not in request.model_fields_set:
            return None
        return encode_result(rid, out)


def jsonrpc_app(
    handlers: Mapping[str, Handler],
    *,
    path: str = "/",
    secrets: str | Sequence[str] = (),
    secret_env: str | Sequence[str] = (),
    tolerance: float = DEFAULT_TOLERANCE,
) -> web.Application:
    """An aiohttp application serving ``handlers`` as JSON-RPC 2.0 at ``path``.

    Every JSON-RPC reply, error or not, is sent with HTTP 200, as JSON-RPC over HTTP
    usually is; the executor treats any other status as a transport failure. With
    secrets, a request whose Standard Webhooks signature does not verify (unsigned,
    malformed, stale, future, signed with no known secret) is answered 401 with a JSON
    body ``{"error": "unauthorized", "problem": ..., "message": ...}`` before any
    handler runs.

    Args:
        handlers: a function per hook point (``"tool.invoked.pre"``) taking that
            point's context and returning a replacement or ``None``; it may raise
            ``HookAbort`` to veto the operation.
        path: the URL path to POST to.
        secrets: ``whsec_`` secrets a request may be signed with (several while rotating).
        secret_env: names of environment variables holding such secrets, read now.
        tolerance: seconds a ``webhook-timestamp`` may be off this host's clock.

    Returns:
        The application; run it with ``web.run_app`` or an ``AppRunner``.

    Raises:
        UnknownHookPointError: a key is not a point of the catalogue.
        SignatureError: a secret is not ``whsec_<base64>``, or a ``secret_env`` variable
            is not set (the message names the variable, never a value).
    """
    dispatcher = JsonRpcDispatcher(handlers)
    verifier = _verifier(secrets, secret_env, tolerance)

    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        if verifier is not None:
            try:
                verifier.verify(request.headers, body)
            except SignatureError as error:
                log.warning("refused a hook request from %s: %s", request.remote, error)
                return web.json_response(
                    {"error": "unauthorized", "problem": error.problem, "message": str(error)},
                    status=401,
                )
        reply = await dispatcher.dispatch(body, schema_version=request.headers.get(SCHEMA_HEADER))
        if reply is None:
            return web.Response(status=204)
        return web.Response(body=reply, content_type=_JSON)

    app = web.Application()
    app.router.add_post(path, handle)
    return app


def _verifier(
    secrets: str | Sequence[str], secret_env: str | Sequence[str], tolerance: float
) -> Verifier | None:
    secrets = [secrets] if isinstance(secrets, str) else list(secrets)
    names = [secret_env] if isinstance(secret_env, str) else list(secret_env)
    unset = [name for name in names if not os.environ.get(name)]
    if unset:
        raise SignatureError(
            problem="secret", detail=f"environment variable {', '.join(unset)} is not set"
        )
    for name in names:
        try:
            decode_secret(os.environ[name])
        except SignatureError as error:
            raise SignatureError(problem="secret", detail=f"{name}: {error.detail}") from None
    found = [*secrets, *(os.environ[name] for name in names)]
    return Verifier(found, tolerance=tolerance) if found else None
