"""The running bot's serving: the hooks checked, the ledger opened, Slack served, then drained.

:mod:`bot.__main__` reads the settings and refuses what needs none of this module's imports
(bolt, aiohttp, the Temporal SDK, SQLAlchemy: about a second, issue 27); then it calls
:func:`serve`. Temporal may be down when the bot starts; the harness client connects on
first use (:class:`bot.gateway.LazyHarness`), so commands get a clear error instead of the
bot refusing to start. A bad hooks configuration file, on the other hand, stops it at once
(:func:`check_hooks`), as it stops the worker; so does a database the ledger cannot open
(:mod:`bot.ledger`).
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web

from bot.app import Bot, build_app, build_web_app, open_recorder
from bot.config import BotSettings
from bot.gateway import Harness, LazyHarness
from bot.ledger import ledger_database
from bot.socket_mode import socket_mode
from harness.config import Settings
from harness.heap import freeze_startup_heap
from harness.hooks import load_redaction
from harness.plugins import effective_manager
from harness.storage.ledger import Ledger
from harness.temporal.client import HarnessClient
from harness.temporal.connection import resolve
from harness.temporal.keys import load_keys

log = logging.getLogger("bot")


async def check_hooks(settings: Settings) -> None:
    """Validate ``HARNESS_HOOKS_CONFIG`` (and the plugins) as the worker will, logging its chains.

    The bot runs no hooks itself, but it is the process a user watches first: a bad
    file must stop it at start with the problem named (issue 6), not surface later
    as every command failing in a worker log.

    Raises:
        HookConfigError: the file or a plugin path is wrong, every problem named.
    """
    if settings.hooks_config is None:
        return
    async with effective_manager(settings, config=settings.hooks_config):
        pass  # applying the file logs the resulting chain of every point
    log.info("hooks configuration %s is valid", settings.hooks_config)


async def serve(
    settings: BotSettings, harness_settings: Settings, stop: asyncio.Event | None = None
) -> None:
    """Serve until ``stop`` is set (never when ``None``), then drain and stop.

    Raises:
        HookConfigError: ``HARNESS_HOOKS_CONFIG`` is invalid; nothing was served.
        PayloadKeyError: no usable ``HARNESS_PAYLOAD_KEY``: the bot would have to send
            Slack's text to Temporal unencrypted, so it does not start.
        SlackRefused: Socket Mode, and Slack refused ``SLACK_APP_TOKEN``.
        DatabaseError: the ledger's database (``HARNESS_DATABASE_URL``) cannot be reached or
            has a newer schema: the bot could not tell a retry from a new event.
        TemporalConfigError: ``TEMPORAL_*`` or the profile file is wrong (a missing file,
            an unknown profile, an unreadable certificate): named now, not on a command.
    """
    load_keys(harness_settings)  # here, not on the first command: the client connects lazily
    resolve(harness_settings)  # the same: how to reach Temporal, checked before serving
    await check_hooks(harness_settings)

    async def connect() -> Harness:
        return await HarnessClient.connect(harness_settings)

    # Connecting has the same budget as any request: a user learns within Slack's 3 s.
    lazy = LazyHarness(connect, connect_timeout=harness_settings.temporal_rpc_seconds)
    ledger = Ledger(
        ledger_database(harness_settings, settings.ledger_path),
        pool_size=harness_settings.database_pool_size,
        migrate=harness_settings.database_migrate,
    )
    await ledger.open()  # unlike Temporal, no database is no bot: it could not tell retries apart
    recorder = open_recorder(settings, harness_settings) if settings.record is not None else None
    redaction = load_redaction(harness_settings.hooks_config)  # checked by check_hooks above
    bot = build_app(settings, lazy, ledger, recorder, redaction=redaction)
    runner = web.AppRunner(build_web_app(settings, bot, ready=lazy.ready), access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, settings.host, settings.port).start()
    except BaseException:  # the port is taken: nothing was served
        await runner.cleanup()  # the application's cleanup closes the ledger
        raise
    log.info(
        "bot listening on http://%s:%d%s, %s%s",
        settings.host,
        settings.port,
        settings.path,
        settings.mode,
        _mode_detail(settings),
    )
    freeze_startup_heap()  # no full collection walks the imports again, pausing every ack
    stop = stop or asyncio.Event()
    try:
        if settings.socket_mode:
            # Socket Mode reconnects by itself (slack_sdk's auto_reconnect_enabled) and logs it.
            async with socket_mode(bot, settings.app_token):
                await stop.wait()
                # Drained with the websocket open: the envelopes taken are still acked on it.
                await drain(bot, settings.shutdown_grace_seconds)
        else:
            await stop.wait()
            await drain(bot, settings.shutdown_grace_seconds)
    finally:
        await runner.cleanup()


async def drain(bot: Bot, grace: float) -> None:
    """Stop taking requests and let the replies still owed finish, for up to ``grace`` s."""
    log.info("stopping: no new Slack requests; replies still owed get up to %g s", grace)
    if await bot.drain(grace):
        log.info("stopped: every reply owed was sent")
    else:
        log.warning("stopped after %g s with replies still owed; they were dropped", grace)


def _mode_detail(settings: BotSettings) -> str:
    if settings.socket_mode and not settings.signing_secret:
        return f" ({settings.path} not served: no SLACK_SIGNING_SECRET, none needed)"
    if not settings.local:
        return ""
    secret = "SLACK_SIGNING_SECRET" if settings.signing_secret else "the development signing secret"
    ignored = "; SLACK_APP_TOKEN ignored (no Socket Mode)" if settings.app_token else ""
    return f" ({secret}, Web API stand-in, loopback only{ignored})"
