"""Build the bot: the bolt ``AsyncApp`` and the aiohttp application that serves it.

HTTP mode always verifies signatures (at the gate and again in bolt). Without a bot
token the app authorizes locally (no ``auth.test`` round trip) and its Web API client
points at the stand-in served by the same aiohttp application. Socket Mode, when an
app token is set, is started by :mod:`bot.__main__`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import final

from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_sdk.web.async_client import AsyncWebClient

from bot import actions, events, slash
from bot.config import STANDIN_PATH, BotSettings
from bot.gate import SlackGate
from bot.gateway import Harness
from bot.ledger import Ledger
from bot.middleware import DedupeEvents, LogRequests
from bot.standin import SlackStandIn

log = logging.getLogger(__name__)


@final
@dataclass(frozen=True, slots=True)
class Bot:
    """Everything :func:`build_app` made, for serving and for shutting down."""

    app: AsyncApp
    slash: slash.SlashHandler
    ledger: Ledger
    standin: SlackStandIn | None


def build_app(settings: BotSettings, client: Harness) -> Bot:
    """The bolt app with its middleware and listeners.

    ``process_before_response=True``: bolt answers as soon as the listener returns
    instead of polling for the ack every 10 ms; slow replies go out from a task of
    their own (:class:`bot.slash.SlashHandler`), so nothing waits on them.

    Args:
        settings: credentials, ports, budgets.
        client: the harness client (or anything shaped like :class:`bot.gateway.Harness`).
    """
    # In local mode the token comes from authorize_locally; giving it here too makes bolt warn.
    token = None if settings.local else settings.token
    web_client = AsyncWebClient(token=token, base_url=settings.web_api_url)
    standin = SlackStandIn(settings.bot_user_id) if settings.local else None

    async def authorize_locally(enterprise_id: str | None, team_id: str | None) -> AuthorizeResult:
        return AuthorizeResult(
            enterprise_id=enterprise_id, team_id=team_id, bot_token=settings.token,
            bot_user_id=settings.bot_user_id, bot_id="BLOCAL",
        )  # fmt: skip

    app = AsyncApp(
        name="tiny-harness",
        signing_secret=settings.secret,
        client=web_client,
        authorize=authorize_locally if settings.local else None,
        process_before_response=True,
        request_verification_enabled=True,
    )
    ledger = Ledger(settings.ledger_path)
    app.use(LogRequests())
    app.use(DedupeEvents(ledger))
    handler = slash.SlashHandler(client, settings)
    slash.register(app, handler)
    events.register(app, events.EventRouter(client, ledger, settings))
    actions.register(app, actions.HelpButtons(client, ledger))
    return Bot(app=app, slash=handler, ledger=ledger, standin=standin)


def build_web_app(settings: BotSettings, bot: Bot) -> web.Application:
    """The aiohttp application: the gated Slack endpoint, plus the stand-in in local mode."""
    web_app = web.Application(client_max_size=settings.max_body_bytes)
    gate = SlackGate(bot.app, signing_secret=settings.secret,
                     max_body_bytes=settings.max_body_bytes)  # fmt: skip
    web_app.router.add_post(settings.path, gate.handle)
    if bot.standin is not None:
        web_app.router.add_routes(bot.standin.routes(STANDIN_PATH))
        log.info("local mode: Slack Web API calls go to the stand-in at %s", STANDIN_PATH)

    async def close(_: web.Application) -> None:
        await bot.slash.drain()
        bot.ledger.close()

    web_app.on_cleanup.append(close)
    return web_app
