"""The codec server: Temporal's remote codec protocol, so the Web UI and CLI can read histories.

``POST /encode`` and ``POST /decode`` take and return ``{"payloads": [...]}`` with
payloads in proto-JSON form (base64 ``data`` and metadata values), as the Web UI
(``--ui-codec-endpoint``) and ``temporal --codec-endpoint`` send them; a path prefix
(``/default/decode``) is accepted too. It holds the payload keys, so it binds
loopback by default, answers CORS only for an allow-list of origins (the local Web UI
under both its names, and the UI that ``/task status`` links to, ``HARNESS_TEMPORAL_UI_URL``:
issue 26), and requires a bearer token before it will listen anywhere else. The codec
itself is :mod:`harness.temporal.codec`::

    python -m harness.temporal.codec_server     HARNESS_CODEC_SERVER_HOST/PORT/TOKEN/ORIGINS
"""

from __future__ import annotations

import hmac
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Iterable
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from aiohttp import web
from google.protobuf import json_format
from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
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

LOCAL_UI_ORIGINS: Final = ("http://127.0.0.1:8233", "http://localhost:8233")
"""The dev server's Web UI as ``make run`` starts it, under both names a browser may use."""


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
    origins: Annotated[tuple[str, ...], NoDecode] = Field(
        default=LOCAL_UI_ORIGINS,
        validation_alias=AliasChoices(
            "HARNESS_CODEC_SERVER_ORIGINS", "HARNESS_CODEC_SERVER_ORIGIN"
        ),
    )
    """Browser origins allowed to call it (CORS), comma-separated (``ORIGIN`` also works): the
    dev server's Web UI at ``http://127.0.0.1:8233`` and ``http://localhost:8233`` by default.
    The origin of ``HARNESS_TEMPORAL_UI_URL``, where ``/task status`` links, is always added."""

    @field_validator("origins", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(origin_of(part) for part in value.split(",") if part.strip())
        return value


def origin_of(url: str) -> str:
    """The origin a browser sends for pages under ``url``: ``scheme://host[:port]``.

    Raises:
        ValueError: ``url`` has no scheme or host.
    """
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        raise ValueError(f"{url.strip()!r} is not an origin such as http://127.0.0.1:8233")
    return f"{parts.scheme}://{parts.netloc}".lower()


def allowed_origins(server: CodecServerSettings, ui_url: str) -> tuple[str, ...]:
    """The CORS allow-list: the configured origins, and the linked UI's (``ui_url``, if a URL)."""
    try:
        linked = (origin_of(ui_url),) if ui_url.strip() else ()
    except ValueError:  # not a URL: /task status links nowhere a browser opens
        linked = ()
    return tuple(dict.fromkeys([*server.origins, *linked]))


def codec_app(
    codec: PayloadCodec, *, origins: Iterable[str], token: str | None = None
) -> web.Application:
    """The aiohttp application serving ``codec`` over the remote codec protocol.

    Args:
        codec: what ``/encode`` and ``/decode`` run.
        origins: the browser origins that get CORS headers (each ``scheme://host:port``).
        token: when set, every request but a CORS preflight needs ``Authorization: Bearer <token>``.
    """

    allowed = frozenset(origins)

    @web.middleware
    async def cors(request: web.Request, handler: Handler) -> web.StreamResponse:
        # A preflight carries no credentials, so it is answered before the token check.
        response = (
            web.Response(status=204)
            if request.method == "OPTIONS"
            else await _answer_errors(request, handler)
        )
        origin = request.headers.get("Origin", "")
        if origin in allowed:
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
    try:
        server = CodecServerSettings()
    except ValidationError as error:
        problems = "; ".join(f"{e['loc'][0]}: {e['msg']}" for e in error.errors())
        print(f"codec server not starting: {problems}", file=sys.stderr)
        raise SystemExit(2) from None
    token = (server.token.get_secret_value() if server.token else "") or None
    settings = Settings()
    try:
        keys = load_keys(settings)
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
    origins = allowed_origins(server, settings.temporal_ui_url)
    app = codec_app(EncryptionCodec(keys), origins=origins, token=token)
    log.info(
        "codec server on http://%s:%d (keys %s; CORS for %s)",
        server.host,
        server.port,
        ", ".join(k.id for k in keys),
        ", ".join(origins),
    )
    web.run_app(app, host=server.host, port=server.port, access_log=None, print=None)


if __name__ == "__main__":
    main()
