"""``python -m bot``: serve the Slack app over HTTP (aiohttp), or Socket Mode with an app token.

Settings that would make it unsafe or useless stop it before anything is served,
with one log line naming the variable (:func:`bot.config.startup_problem`: Slack
credentials missing outside local mode, local mode on a non-loopback host, no payload key).
Temporal may be down when the bot starts; the harness client connects on first
use (:class:`bot.gateway.LazyHarness`), so commands get a clear error instead of
the bot refusing to start. A bad hooks configuration file, on the other hand, stops
it at once (:func:`check_hooks`), as it stops the worker.
"""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web
from pydantic import ValidationError

from bot.app import build_app, build_web_app
from bot.config import BotSettings, startup_problem
from bot.gateway import Harness, LazyHarness
from bot.socket_mode import SlackRefused, socket_mode
from harness.config import Settings
from harness.hooks import HookConfigError, Redactor
from harness.logs import install_log_redaction
from harness.plugins import effective_manager
from harness.temporal.client import HarnessClient
from harness.temporal.connection import resolve
from harness.temporal.errors import PayloadKeyError, TemporalConfigError
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


async def serve(settings: BotSettings, harness_settings: Settings) -> None:
    """Run until cancelled.

    Raises:
        HookConfigError: ``HARNESS_HOOKS_CONFIG`` is invalid; nothing was served.
        PayloadKeyError: no usable ``HARNESS_PAYLOAD_KEY``: the bot would have to send
            Slack's text to Temporal unencrypted, so it does not start.
        SlackRefused: Socket Mode, and Slack refused ``SLACK_APP_TOKEN``.
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
    bot = build_app(settings, lazy)
    runner = web.AppRunner(build_web_app(settings, bot), access_log=None)
    await runner.setup()
    await web.TCPSite(runner, settings.host, settings.port).start()
    log.info("bot listening on http://%s:%d%s, %s%s", settings.host, settings.port,
             settings.path, settings.mode, _mode_detail(settings))  # fmt: skip
    try:
        if settings.socket_mode:
            # Socket Mode reconnects by itself (slack_sdk's auto_reconnect_enabled) and logs it.
            async with socket_mode(bot, settings.app_token):
                await asyncio.Event().wait()
        else:
            await asyncio.Event().wait()
    finally:
        await runner.cleanup()


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable of a field: ``port`` -> ``BOT_PORT``; an alias is one already."""
    name = "_".join(map(str, loc))
    return name if name.isupper() else f"BOT_{name.upper()}"


def _mode_detail(settings: BotSettings) -> str:
    if settings.socket_mode and not settings.signing_secret:
        return f" ({settings.path} not served: no SLACK_SIGNING_SECRET, none needed)"
    if not settings.local:
        return ""
    secret = "SLACK_SIGNING_SECRET" if settings.signing_secret else "the development signing secret"
    ignored = "; SLACK_APP_TOKEN ignored (no Socket Mode)" if settings.app_token else ""
    return f" ({secret}, Web API stand-in, loopback only{ignored})"


def main() -> None:
    """Read settings from the environment and serve.

    Raises:
        SystemExit: 2 when the settings or the hooks configuration forbid starting.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = BotSettings()
    except ValidationError as error:  # BOT_PORT=abc, BOT_LOCAL=maybe: name it, no traceback
        wrong = "; ".join(f"{_variable(e['loc'])}: {e['msg']}" for e in error.errors())
        log.error("not starting: %s", wrong)
        raise SystemExit(2) from None
    problem = startup_problem(settings)
    if problem is not None:
        log.error("not starting: %s", problem)
        raise SystemExit(2)
    harness_settings = Settings()
    secrets = (*settings.secrets(), *harness_settings.secret_values())
    install_log_redaction(Redactor(secrets=secrets))  # every log line of this process
    try:
        asyncio.run(serve(settings, harness_settings))
    except (HookConfigError, PayloadKeyError, SlackRefused, TemporalConfigError) as error:
        log.error("not starting: %s", error)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
