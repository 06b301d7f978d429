"""Small bolt middleware, one job each (bolt's ``request_verification/`` is the model).

They run inside bolt after its own signature check; the HTTP gate in
:mod:`bot.gate` has already refused unsigned and unparsable requests.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Final, final

from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse

from bot.ledger import Ledger
from bot.payloads import dedupe_keys
from harness.hooks import Redactor

Next = Callable[[], Awaitable[BoltResponse]]
log = logging.getLogger("bot.requests")
LOG_BODY_CHARS: Final = 600
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
