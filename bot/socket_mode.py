"""Socket Mode: Slack delivers events, commands and clicks over a websocket the bot opens.

The same bolt app as over HTTP (:func:`bot.app.build_app`) takes every envelope.
slack_sdk's aiohttp client, through bolt's ``AsyncSocketModeHandler``, asks for the
connection with ``apps.connections.open`` on the bot's Web API base URL
(``BOT_API_URL``, Slack's by default), acks each envelope with what the listener
answered, and reconnects by itself on Slack's ``disconnect`` or a dead link. No
public URL and no signing secret: nothing arrives unasked, the connection is the
one the app-level token opened. What this module adds: a token Slack refuses stops
the bot at start with one line (:class:`SlackRefused`) instead of the SDK retrying
it every ten seconds with a traceback, and each envelope's payload gets the shape
check the HTTP gate (:mod:`bot.gate`) gives a body (:func:`bot.envelope.check`), so
a payload bolt cannot read is one log line, not a traceback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final, final

from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.adapter.socket_mode.async_internals import run_async_bolt_app, send_async_response
from slack_sdk.errors import SlackApiError
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse

from bot.app import Bot
from bot.config import APP_TOKEN_PREFIX
from bot.envelope import MalformedBody, check
from bot.lifecycle import SHUTTING_DOWN
from harness.channels.scopes import app_token_scopes
from harness.errors import ServiceError

log = logging.getLogger(__name__)

SCOPE: Final = ", ".join(app_token_scopes())
"""The app-level token's scope Socket Mode needs (``connections:write``)."""
REFUSALS: Final = frozenset(
    {
        "not_authed",
        "invalid_auth",
        "not_allowed_token_type",
        "account_inactive",
        "token_revoked",
        "token_expired",
        "missing_scope",
    }
)
"""``apps.connections.open`` errors no retry can fix: the token is wrong."""


@final
class SlackRefused(ServiceError):
    """Slack refused ``SLACK_APP_TOKEN`` when asked for a Socket Mode connection.

    Args:
        error: Slack's error code (``invalid_auth``); never the token.
        url: the Web API base URL that answered.
    """

    def __init__(self, *, error: str, url: str) -> None:
        self.error = error
        self.url = url
        super().__init__(
            f"Slack refused SLACK_APP_TOKEN at {url}apps.connections.open ({error}): set it to "
            f"an app-level token ({APP_TOKEN_PREFIX}…) generated under Basic Information → "
            f"App-Level Tokens with the scope {SCOPE}"
        )


@final
class CheckedHandler(AsyncSocketModeHandler):
    """Bolt's Socket Mode handler: payload shapes checked, envelopes in flight counted.

    Counted by the bot's :class:`bot.lifecycle.Lifecycle` like HTTP requests, so a stop
    keeps the websocket open until each envelope taken is answered and acked; one that
    arrives while the bot drains is left unacked, and Slack delivers it again elsewhere.
    """

    def __init__(self, bot: Bot, app_token: str) -> None:
        super().__init__(bot.app, app_token)
        self.lifecycle = bot.lifecycle
        self.recorder = bot.recorder

    async def handle(self, client: SocketModeClient, req: SocketModeRequest) -> None:  # type: ignore[override]  # bolt narrows the client type the same way
        """Dispatch ``req`` to the app, or ack it unread if its payload is malformed.

        Acked, because Slack would only deliver the same payload again.
        """
        if self.lifecycle.draining:
            log.info(
                "Socket Mode %s envelope %s left unacked: %s; Slack delivers it again",
                req.type,
                req.envelope_id,
                SHUTTING_DOWN,
            )
            return
        async with self.lifecycle.answering():
            try:
                check(req.payload)
            except MalformedBody as error:
                log.warning(
                    "Socket Mode %s envelope %s with a malformed payload acked unread: %s",
                    req.type,
                    req.envelope_id,
                    error,
                )
                response = SocketModeResponse(envelope_id=req.envelope_id)
                await client.send_socket_mode_response(response)
                return
            if self.recorder is None:
                await super().handle(client, req)
                return
            exchange = self.recorder.envelope(
                type=req.type,
                envelope_id=req.envelope_id,
                payload=req.payload,
                accepts_response_payload=bool(req.accepts_response_payload),
                retry_attempt=req.retry_attempt,
                retry_reason=req.retry_reason,
            )
            start = time.time()  # bolt's own handle, with the answer recorded as the ack went
            answer = await run_async_bolt_app(self.app, req)
            await send_async_response(client, req, answer, start)
            exchange.answer(
                answer.status, answer.body, (answer.headers.get("content-type") or [""])[0]
            )


@asynccontextmanager
async def socket_mode(bot: Bot, app_token: str) -> AsyncIterator[CheckedHandler]:
    """Connected to Slack over Socket Mode inside the block; closed (websocket, session) after.

    Raises:
        SlackRefused: the first ``apps.connections.open`` was refused for the token.
    """
    handler = CheckedHandler(bot, app_token)
    try:
        client: SocketModeClient = handler.client
        client.wss_uri = await _first_url(client)
        await handler.connect_async()  # type: ignore[no-untyped-call]  # bolt leaves it unannotated
        log.info("Socket Mode connected through %s", client.web_client.base_url)
        yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]


async def _first_url(client: SocketModeClient) -> str | None:
    """The first websocket URL, or ``None`` to let the SDK keep asking (Slack unreachable).

    Asked here rather than by the SDK, whose connect loop logs a refusal with a
    traceback and retries it forever.
    """
    try:
        response = await client.web_client.apps_connections_open(app_token=client.app_token)
    except SlackApiError as error:
        code = str(error.response.get("error", ""))
        if code in REFUSALS:
            raise SlackRefused(error=code, url=client.web_client.base_url) from None
        log.warning("apps.connections.open failed (%s); retrying", code or "no error code")
        return None
    except Exception as error:  # Slack unreachable: the SDK retries, as it does later on
        log.warning("apps.connections.open not reachable (%s); retrying", type(error).__name__)
        return None
    url = response.get("url")
    return url if isinstance(url, str) else None
