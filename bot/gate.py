"""The HTTP gate in front of bolt: size cap, signature check, shape check, then dispatch.

Bolt parses the body when it builds its request, *before* its signature middleware
runs, and reads signed bodies as if their shape were right: a truncated JSON body,
a non-numeric timestamp, a signature with a non-ASCII character (``hmac`` refuses
to compare it) or an ``event`` that is a string all raised there (a 500 with a
stack trace in the log). So this gate checks the signature on the raw bytes first,
lets through only bodies whose shape bolt can read (:mod:`bot.envelope`), and
answers every malformed request with a 4xx. Bolt's own verification stays on
behind it, and its error handler (:class:`bot.app.AnswerBadRequest`) turns
whatever still fails into a 400.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import time
from collections.abc import Sequence
from typing import Any, Final, final

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.context.async_context import AsyncBoltContext
from slack_bolt.request.async_internals import build_async_context
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.envelope import MalformedBody, parse
from bot.recording import Recorder

log = logging.getLogger(__name__)

MAX_SKEW_SECONDS: Final = 300
_TIMESTAMP: Final = re.compile(r"[0-9]{1,12}")
_SIGNATURE: Final = re.compile(r"v0=[0-9a-f]{64}")
_BOLT_INTERNAL: Final = "x-slack-bolt-"
"""Headers bolt sets for its own lazy re-dispatch (FaaS adapters); never Slack's."""


@final
class SlackGate:
    """An aiohttp handler that only lets signed, well-formed requests reach ``app``.

    Args:
        app: the bolt app.
        signing_secret: the secret Slack signs with.
        max_body_bytes: larger bodies get 413 without being read.
    """

    def __init__(
        self,
        app: AsyncApp,
        *,
        signing_secret: str,
        max_body_bytes: int,
        recorder: Recorder | None = None,
    ) -> None:
        if not signing_secret:
            raise ValueError("the gate needs a signing secret")
        self.app = app
        self.secret = signing_secret.encode()
        self.max_body_bytes = max_body_bytes
        self.recorder = recorder

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one POST from Slack."""
        if request.content_length is not None and request.content_length > self.max_body_bytes:
            return _plain(413, "body too large")
        raw = await request.content.read(self.max_body_bytes + 1)
        if len(raw) > self.max_body_bytes:
            return _plain(413, "body too large")
        if not self._signed(raw, request):
            return _plain(401, "invalid signature or timestamp")
        headers: dict[str, str | Sequence[str]] = {
            k: v for k, v in request.headers.items() if not k.lower().startswith(_BOLT_INTERNAL)
        }
        try:
            text = raw.decode("utf-8")
            body: dict[str, Any] | None = parse(text, headers)
        except (UnicodeDecodeError, MalformedBody) as error:
            # Signed but not a body bolt can read: Slack never sends these; say so and stop.
            log.warning("signed request with a malformed body rejected: %s", _reason(error))
            text, body = raw.decode("utf-8", "replace"), None
        exchange = (
            None
            if self.recorder is None
            else self.recorder.http(
                path=request.path,
                query=request.query_string,
                headers=request.headers,
                raw=raw,
                body=body,
            )
        )
        if body is None:
            response = _plain(400, "malformed body")
        else:
            response = await self._dispatch(text, body, headers, request.query_string)
        if exchange is not None:
            exchange.answer(response.status, response.text or "", response.content_type)
        return response

    async def _dispatch(
        self, text: str, body: dict[str, Any], headers: dict[str, str | Sequence[str]], query: str
    ) -> web.Response:
        """Hand a well-formed request to bolt; a failure outside bolt's own try is a 400."""
        try:
            checked = bolt_request(text, body, query=query, headers=headers)
            response = await self.app.async_dispatch(checked)
        except Exception as error:  # outside bolt's own try (building its request): still no 500
            log.warning("request not handled (%s); answered 400", type(error).__name__)
            return _plain(400, "bad request")
        return await to_aiohttp_response(response)

    def _signed(self, raw: bytes, request: web.Request) -> bool:
        """Slack's v0 signature over the raw bytes, within the allowed clock skew.

        Checked here on bytes, not with slack_sdk's verifier: that one decodes the
        body as UTF-8 and compares ``str`` digests, which raises on a non-ASCII
        character instead of answering "no".
        """
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not _TIMESTAMP.fullmatch(timestamp) or not _SIGNATURE.fullmatch(signature):
            return False
        if abs(time.time() - int(timestamp)) > MAX_SKEW_SECONDS:
            return False
        mac = hmac.new(self.secret, b"v0:" + timestamp.encode() + b":" + raw, hashlib.sha256)
        return hmac.compare_digest(f"v0={mac.hexdigest()}".encode(), signature.encode())


@final
class HttpErrorLog(logging.LoggerAdapter[logging.Logger]):
    """aiohttp's server log, with requests that are not valid HTTP logged in one line.

    aiohttp answers a request its parser refuses (a NUL or other control byte in a
    header, a bad request line) with a 400 by itself, but logs it with a traceback
    at ERROR, as if the server had failed. That is a client's fault, so it is one
    WARNING line here; every other exception keeps its traceback.
    Passed to aiohttp as ``handler_args={"logger": ...}`` (:func:`bot.app.build_web_app`).
    """

    def exception(
        self, msg: object, *args: object, exc_info: object = True, **kwargs: object
    ) -> None:
        """Log one line for a refused request; anything else as ``Logger.exception``."""
        if isinstance(exc_info, HttpProcessingError):
            self.logger.warning(
                "request refused by the HTTP parser (%d): %s", exc_info.code, exc_info.message
            )
            return
        self.logger.exception(msg, *args, exc_info=exc_info, **kwargs)  # type: ignore[arg-type]  # Logger's own keywords, passed through


def bolt_request(
    text: str, body: dict[str, Any], *, query: str, headers: dict[str, str | Sequence[str]]
) -> AsyncBoltRequest:
    """Bolt's request for ``text``, reading the body the gate checked (``body``).

    They differ only where bolt's parser loses a form body (see
    :func:`bot.envelope.parse`); then bolt's parse and the context it derived from
    it are replaced, so the listener gets the command that was sent.
    """
    request = AsyncBoltRequest(body=text, query=query, headers=headers)
    if request.body != body:
        request.body = body
        request.context = build_async_context(AsyncBoltContext({}), body)
    return request


def _reason(error: Exception) -> str:
    return "not UTF-8" if isinstance(error, UnicodeDecodeError) else str(error)


def _plain(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text)
