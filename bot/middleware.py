"""Small bolt middleware, one job each (bolt's ``request_verification/`` is the model).

They run inside bolt after its own signature check; the HTTP gate in
:mod:`bot.gate` has already refused unsigned and malformed requests.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any, Final, final
from urllib.parse import urlsplit

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.context.say.async_say import AsyncSay
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.webhook_response import WebhookResponse

from bot.config import RESPONSE_PATH
from bot.payloads import dedupe_keys
from bot.recording import Recorder, RecordingRespond
from bot.recording.recorder import recording_copy
from harness.http import is_loopback
from harness.redaction import Redactor
from harness.storage.ledger import Ledger

Next = Callable[[], Awaitable[BoltResponse]]
log = logging.getLogger("bot.requests")
LOG_BODY_CHARS: Final = 600
SLACK_RESPONSE_HOST: Final = "hooks.slack.com"
_RESPONSE_URL: Final = re.compile(r"hooks\.slack\.com(?:%2F|/)[^&\s\"]+", re.IGNORECASE)


@final
class DedupeEvents(AsyncMiddleware):
    """Acks an event already handled (a Slack retry, or the other half of a mention pair).

    Only Events API payloads are checked; slash commands are never retried by Slack.
    The answer is 200 so that Slack stops retrying.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next
    ) -> BoltResponse:
        """Claim the event's keys; stop here if another delivery claimed one first."""
        if req.body.get("type") != "event_callback":
            return await next()
        if await self.ledger.claim(dedupe_keys(req.body)):
            return await next()
        retry = req.headers.get("x-slack-retry-num", ["0"])[0]
        log.info("duplicate event %s (retry %s) acknowledged", req.body.get("event_id"), retry)
        return BoltResponse(status=200, body="")


@final
class LogRequests(AsyncMiddleware):
    """Logs each request with its body redacted and cut short (tokens, response URLs)."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor or Redactor()

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next
    ) -> BoltResponse:
        """Log, then pass on."""
        if log.isEnabledFor(logging.DEBUG):
            text = self.redactor.redact_text(req.raw_body[:LOG_BODY_CHARS])
            text = _RESPONSE_URL.sub("hooks.slack.com/[REDACTED]", text)
            log.debug("request %s: %s", req.body.get("type") or req.body.get("command"), text)
        return await next()


@final
class GuardResponseUrls(AsyncMiddleware):
    """Lets ``respond`` post only to Slack's response URLs (or, locally, the bot's stand-in).

    ``response_url`` is a field of the signed body, so whoever can sign (or, before
    issue 9, forge) a request chooses where the bot's late replies go: a request
    forgery turned into a server-side one. Outside local mode only
    ``https://hooks.slack.com/...`` passes; in local mode only the stand-in's
    ``http://<loopback>:<port>/_local/response/...``. Any other URL is dropped here,
    once, for every listener (slash commands and interactivity alike), and logged
    by its host alone.

    Args:
        local_port: the bot's own port in local mode; ``None`` outside it.
    """

    def __init__(self, *, local_port: int | None = None) -> None:
        self.local_port = local_port

    def allowed(self, url: str) -> bool:
        """Whether the bot may post to ``url``."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return False
        if parts.username is not None or parts.password is not None:
            return False
        if self.local_port is None:
            return (parts.scheme, parts.hostname, port) in (
                ("https", SLACK_RESPONSE_HOST, None),
                ("https", SLACK_RESPONSE_HOST, 443),
            )
        return (
            parts.scheme == "http"
            and is_loopback(parts.hostname or "")
            and port == self.local_port
            and parts.path.startswith(RESPONSE_PATH)
        )

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next
    ) -> BoltResponse:
        """Replace ``respond`` with one that posts nothing when the URL is not allowed."""
        url = req.context.response_url
        if url is not None and not (isinstance(url, str) and self.allowed(url)):
            only = SLACK_RESPONSE_HOST if self.local_port is None else "the local stand-in"
            log.warning("response_url to host %r dropped: replies go only to %s", _host(url), only)
            req.context["response_url"] = None
            req.context["respond"] = DroppedRespond()
        return await next()


@final
class RecordOutgoing(AsyncMiddleware):
    """Records what each listener sends back (``BOT_RECORD``): Web API calls and ``say`` through
    a recording copy of bolt's per-request client, posts to ``response_url`` through a recording
    ``respond``; and the bot's user id as Slack told bolt (the recording's header names it).

    Bolt builds a fresh client for every request, so the app's own client alone would miss
    these. Runs after :class:`GuardResponseUrls`, so a dropped URL records nothing.
    """

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    async def async_process(
        self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next
    ) -> BoltResponse:
        """Swap in the recording client, ``say`` and ``respond``; pass on."""
        context = req.context
        if context.bot_user_id:
            self.recorder.learn_bot_user(context.bot_user_id)
        if isinstance(context.client, AsyncWebClient):
            client = recording_copy(context.client, self.recorder)
            context["client"] = client
            if isinstance(say := context.get("say"), AsyncSay):
                say.client = client
        respond = context.get("respond")
        if isinstance(respond, AsyncRespond) and not isinstance(respond, DroppedRespond):
            context["respond"] = RecordingRespond(respond, self.recorder)
        return await next()


@final
class DroppedRespond(AsyncRespond):
    """``respond`` for a request whose ``response_url`` was refused: posts nothing, raises nothing.

    Raising would make each listener log a traceback for what was already logged once.
    """

    def __init__(self) -> None:
        super().__init__(response_url=None)

    async def __call__(self, *args: Any, **kwargs: Any) -> WebhookResponse:  # noqa: ANN401  # bolt's respond keywords
        """Post nothing."""
        return WebhookResponse(url="", status_code=0, body="dropped", headers={})


def _host(url: object) -> str:
    """The host of ``url`` for the log, never the path (a forged URL may carry anything)."""
    if not isinstance(url, str):
        return f"(a {type(url).__name__})"
    try:
        return (urlsplit(url).hostname or "")[:100]
    except ValueError:
        return "(unparsable)"
