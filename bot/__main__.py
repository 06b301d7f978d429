"""``python -m bot``: serve the Slack app over HTTP (aiohttp), or Socket Mode with an app token.

Temporal may be down when the bot starts; the harness client connects on first
use (:class:`bot.gateway.LazyHarness`), so commands get a clear error instead of
the bot refusing to start.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

from bot.app import build_app, build_web_app
from bot.config import BotSettings
from bot.gateway import Harness, LazyHarness
from harness.config import Settings
from harness.temporal.client import HarnessClient

log = logging.getLogger("bot")


async def serve(settings: BotSettings, harness_settings: Settings) -> None:
    """Run until cancelled."""

    async def connect() -> Harness:
        return await HarnessClient.connect(harness_settings)

    bot = build_app(settings, LazyHarness(connect))
    runner = web.AppRunner(build_web_app(settings, bot), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, settings.host, settings.port).start()
    mode = "local mode (no Slack credentials)" if settings.local else "HTTP mode"
    log.info("bot listening on http://%s:%d%s, %s", settings.host, settings.port,
             settings.path, mode)  # fmt: skip
    try:
        if settings.app_token:
            # Socket Mode reconnects by itself (slack_sdk's auto_reconnect_enabled) and logs it.
            log.info("Socket Mode on; the HTTP endpoint stays up for local tools")
            await AsyncSocketModeHandler(bot.app, settings.app_token).start_async()  # type: ignore[no-untyped-call]  # bolt leaves it unannotated
        else:
            await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def main() -> None:
    """Read settings from the environment and serve."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        asyncio.run(serve(BotSettings(), Settings()))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
