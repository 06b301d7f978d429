"""The codec server: Temporal's remote codec protocol, so the Web UI and CLI can read histories.

``POST /encode`` and ``POST /decode`` take and return ``{"payloads": [...]}`` with
payloads in proto-JSON form (base64 ``data`` and metadata values), as the Web UI
(``--ui-codec-endpoint``) and ``temporal --codec-endpoint`` send them; a path prefix
(``/default/decode``) is accepted too. It holds the payload keys, so it binds
loopback by default, answers CORS for one origin (the local UI unless configured),
and requires a bearer token before it will listen anywhere else. The codec itself is
:mod:`harness.temporal.codec`::

    python -m harness.temporal.codec_server     HARNESS_CODEC_SERVER_HOST/PORT/TOKEN/ORIGIN
"""

from __future__ import annotations

import hmac
import json
import logging
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Final

from aiohttp import web
from google.protobuf import json_format
from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from harness.config import Settings
from harness.http import is_loopback
from harness.temporal.codec import EncryptionCodec
from harness.temporal.errors import PayloadCodecError, PayloadKeyError
from harness.temporal.keys import load_keys

log = logging.getLogger(__name__)

ALLOWED_HEADERS: Final = "Content-Type, X-Namespace, Authorization"
MAX_BODY_BYTES: Final = 16 * 1024 * 1024
"""A history page of payloads; Temporal's own limit is 2 MB a payload, 4 MB a request."""

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class CodecServerSettings(BaseSettings):
    """Where the codec server listens and whom it answers (``HARNESS_CODEC_SERVER_*``)."""

    model_config = SettingsConfigDict(
        env_prefix="HARNESS_CODEC_SERVER_",
        env_file=".env",
        extra="ignore",
        frozen=True,
        use_attribute_docstrings=True,  # the docstrings are docs/settings.md (harness.settings_doc)
    )

    host: str = "127.0.0.1"
    """Where the codec server listens; a non-loopback address needs ``token``."""
    port: int = 8888
    """The codec server's port (the Web UI's and the CLI's ``--codec-endpoint`` name it)."""
    token: SecretStr | None = None
    """Bearer token every request must carry; required unless ``host`` is loopback."""
    origin: str = "http://localhost:8233"
    """The browser origin allowed to call it (CORS): the dev server's Web UI by default."""


def codec_app(codec: PayloadCodec, *, origin: str, token: str | None = None) -> web.Application:
    """The aiohttp application serving ``codec`` over the remote codec protocol.

    Args:
        codec: what ``/encode`` and ``/decode`` run.
        origin: the one browser origin that gets CORS headers.
        token: when set, every request but a CORS preflight needs ``Authorization: Bearer <token>``.
    """

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        # A preflight carries no credentials, so it is answered before the token check.
        response = (
            web.Response(status=204)
            if request.method == "OPTIONS"
            else await _answer_errors(request, handler)
        )
        if request.headers.get("Origin") == origin:
            response.headers.update(
                {
                    "Access-Control-Allow-Origin": origin,
                    "Access-Control-Allow-Methods": "POST, OPTIONS",
                    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                    "Access-Control-Allow-Credentials": "true",
                    "Vary": "Origin",
                }
            )
        return response

    @web.middleware
    async def bearer(request: web.Request, handler: Handler) -> web.StreamResponse:
        if token is not None and request.method != "OPTIONS":
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                raise web.HTTPUnauthorized(
                    text="a bearer token is required", headers={"WWW-Authenticate": "Bearer"}
                )
        return await handler(request)

    async def run(request: web.Request) -> web.Response:
        name = request.match_info["operation"]
        payloads = _payloads(await _json(request))
        try:
            out = await (codec.encode(payloads) if name == "encode" else codec.decode(payloads))
        except PayloadCodecError as error:  # a payload this server's keys cannot open
            raise web.HTTPBadRequest(text=str(error)) from None
        body = {"payloads": [json_format.MessageToDict(p) for p in out]}
        return web.json_response(body)

    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[cors, bearer])
    app.router.add_post(r"/{prefix:(?:.*/)?}{operation:encode|decode}", run)
    return app


async def _answer_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """HTTP errors as responses, so the CORS headers reach the browser on a 400 or 401 too."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        return web.Response(status=error.status, text=error.text, headers=error.headers)


async def _json(request: web.Request) -> Any:  # noqa: ANN401  # any JSON document
    try:
        return json.loads(await request.read())
    except (ValueError, UnicodeDecodeError):
        raise web.HTTPBadRequest(text='the body is not JSON; send {"payloads": [...]}') from None


def _payloads(body: Any) -> list[Payload]:  # noqa: ANN401  # checked here, piece by piece
    """The payloads of a request body, or a 400 naming the first thing wrong."""
    items = body.get("payloads") if isinstance(body, dict) else None
    if not isinstance(items, list):
        raise web.HTTPBadRequest(text='the body needs "payloads": a list of payloads')
    payloads = []
    for n, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise json_format.ParseError("not an object")
            payloads.append(json_format.ParseDict(item, Payload()))
        except json_format.ParseError as error:
            reason = f"payload {n} is not a Temporal payload: {error}"
            raise web.HTTPBadRequest(text=reason) from None
    return payloads


def main() -> None:
    """Serve until interrupted; exit 2 with one line when keys or the token are missing."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    server = CodecServerSettings()
    token = (server.token.get_secret_value() if server.token else "") or None
    try:
        keys = load_keys(Settings())
    except PayloadKeyError as error:
        print(f"codec server not starting: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    if not token and not is_loopback(server.host):
        print(
            f"codec server not starting: HARNESS_CODEC_SERVER_TOKEN is required to listen on "
            f"{server.host}, which is not a loopback address",
            file=sys.stderr,
        )
        raise SystemExit(2)
    app = codec_app(EncryptionCodec(keys), origin=server.origin, token=token)
    log.info(
        "codec server on http://%s:%d (keys %s; CORS for %s)",
        server.host,
        server.port,
        ", ".join(k.id for k in keys),
        server.origin,
    )
    web.run_app(app, host=server.host, port=server.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
