"""The HTTP gate in front of bolt: size cap, signature check, safe parse, then dispatch.

Bolt parses the body when it builds its request, *before* its signature middleware
runs, and a truncated JSON body or a non-numeric timestamp raises there (a 500 with
a stack trace in the log). So this gate checks the signature on the raw bytes first
and parses only signed bodies, answering every malformed request with a 4xx.
Bolt's own verification stays on behind it.
"""

from __future__ import annotations

import logging
from typing import Final, final

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response
from slack_bolt.async_app import AsyncApp
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

log = logging.getLogger(__name__)

MAX_SKEW_SECONDS: Final = 300


@final
class SlackGate:
    """An aiohttp handler that only lets signed, well-formed requests reach ``app``.

    Args:
        app: the bolt app.
        signing_secret: the secret Slack signs with.
        max_body_bytes: larger bodies get 413 without being read.
    """

    def __init__(self, app: AsyncApp, *, signing_secret: str, max_body_bytes: int) -> None:
        self.app = app
        self.verifier = SignatureVerifier(signing_secret)
        self.max_body_bytes = max_body_bytes

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Answer one POST from Slack."""
        if request.content_length is not None and request.content_length > self.max_body_bytes:
            return _plain(413, "body too large")
        raw = await request.content.read(self.max_body_bytes + 1)
        if len(raw) > self.max_body_bytes:
            return _plain(413, "body too large")
        if not self._signed(raw, request):
            return _plain(401, "invalid signature or timestamp")
        try:
            body = raw.decode("utf-8")
            bolt_request = AsyncBoltRequest(
                body=body, query=request.query_string, headers=dict(request.headers)
            )
        except (ValueError, TypeError, AttributeError, KeyError) as error:
            # Signed but unparsable: Slack never sends these, so say what is wrong and stop.
            log.warning("signed request with a malformed body rejected: %s", type(error).__name__)
            return _plain(400, "malformed body")
        if not isinstance(bolt_request.body, dict):
            return _plain(400, "malformed body")
        try:
            response = await self.app.async_dispatch(bolt_request)
        except Exception:
            log.exception("bolt failed to dispatch a request")
            return _plain(500, "internal error")
        return await to_aiohttp_response(response)

    def _signed(self, raw: bytes, request: web.Request) -> bool:
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not timestamp.isdigit() or not signature.startswith("v0="):
            return False
        try:
            return self.verifier.is_valid(raw, timestamp, signature)
        except (ValueError, UnicodeDecodeError):
            return False


def _plain(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text)
