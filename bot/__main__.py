"""``python -m bot``: serve the Slack app over HTTP (aiohttp), or Socket Mode with an app token.

Settings that would make it unsafe or useless stop it before anything is served,
with one log line naming the variable (:func:`bot.config.startup_problem`: Slack
credentials missing outside local mode, local mode on a non-loopback host, no payload key).
Temporal may be down when the bot starts; the harness client connects on first
use (:class:`bot.gateway.LazyHarness`), so commands get a clear error instead of
the bot refusing to start. A bad hooks configuration file, on the other hand, stops
it at once (:func:`bot.serving.check_hooks`), as it stops the worker; so do a database the
ledger cannot open (:mod:`bot.ledger`) and a value in the environment either settings class
cannot take (:func:`harness.startup.load_settings`). What needs none of the running bot's
imports is refused before they load (:mod:`bot.serving` holds the rest: issue 27).
SIGTERM or SIGINT stops taking Slack's requests and lets the replies still owed finish
for ``BOT_SHUTDOWN_GRACE_SECONDS`` (:mod:`bot.lifecycle`), then the bot exits 0.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import NoReturn

from bot.config import BotSettings, startup_problem
from harness.config import Settings
from harness.errors import HarnessError
from harness.logs import configure_logging, install_log_redaction
from harness.redaction import Redactor
from harness.startup import EXIT_STATUS, SettingsInvalid, load_settings, one_line
from harness.temporal.keys import load_keys
from harness.tracing import TracingConfigError, configure_tracing
from harness.tracing import describe as describe_tracing

log = logging.getLogger("bot")


def main() -> None:
    """Read settings from the environment and serve.

    Raises:
        SystemExit: 2 (:data:`~harness.startup.EXIT_STATUS`) when the settings, the hooks
            configuration or Slack forbid starting: one line, no traceback.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:  # BOT_PORT=abc, HARNESS_MODELS='[oops': the variable named, no traceback
        settings = load_settings(BotSettings)
        harness_settings = load_settings(Settings)
    except SettingsInvalid as error:
        _refuse(one_line(error))
    problem = startup_problem(settings)
    if problem is not None:
        _refuse(problem)
    try:
        load_keys(harness_settings)  # no key, no bot: said before anything else is logged
    except HarnessError as error:
        _refuse(one_line(error))
    secrets = (*settings.secrets(), *harness_settings.secret_values())
    install_log_redaction(Redactor(secrets=secrets))  # every log line of this process
    configure_logging(harness_settings.log_format)  # HARNESS_LOG_FORMAT, as the worker reads it
    try:
        tracing = configure_tracing(service="tiny-harness-bot")  # OTEL_*, as the worker
    except TracingConfigError as error:
        _refuse(one_line(error))
    log.info("%s", describe_tracing(tracing))

    from bot.serving import serve  # bolt, aiohttp, the Temporal SDK, SQLAlchemy: ~1 s

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(settings, harness_settings, stop)

    try:
        asyncio.run(run())
    except HarnessError as error:  # hooks file, payload key, model, SlackRefused, database
        _refuse(one_line(error))
    finally:
        if tracing is not None:
            tracing.shutdown()  # exports what is still batched


def _refuse(problem: str) -> NoReturn:
    log.error("not starting: %s", problem)
    raise SystemExit(EXIT_STATUS)


if __name__ == "__main__":
    main()
