"""Build the bot: the bolt ``AsyncApp`` and the aiohttp application that serves it.

HTTP mode always verifies signatures (at the gate and again in bolt). In local mode
(``BOT_LOCAL=1``, :mod:`bot.config`) the app authorizes locally (no ``auth.test``
round trip) and its Web API client points at the stand-in served by the same aiohttp
application; otherwise bolt authorizes with the bot token. Socket Mode, when an app
token is set, is started by :mod:`bot.__main__` (:mod:`bot.socket_mode`); without a
signing secret, which Socket Mode does not need, the HTTP endpoint for Slack is not
served. Every text the bot writes goes through one :class:`~harness.redaction.Redactor`
that knows the bot's own credentials.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, final

from aiohttp import web
from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot import actions, events, slash
from bot.config import STANDIN_PATH, BotSettings, startup_problem
from bot.gate import HttpErrorLog, SlackGate
from bot.gateway import Harness
from bot.lifecycle import Lifecycle
from bot.middleware import DedupeEvents, GuardResponseUrls, LogRequests, RecordOutgoing
from bot.recording import Recorder, RecordingWebClient, Scrubber
from harness import health
from harness.redaction import Redactor
from harness.storage import database_url
from harness.storage.ledger import Ledger

if TYPE_CHECKING:  # the stand-in is developer tooling, loaded only in local mode (_standin)
    from bot.standin import SlackStandIn
    from harness.config import Settings

log = logging.getLogger(__name__)


def _not_the_env_token_warning(record: logging.LogRecord) -> bool:
    """Drop bolt's "`token` will be unused" warning, which every start would print.

    Bolt reads ``SLACK_BOT_TOKEN`` from the environment itself and warns that it
    ignores it in favour of the client given; that client was built from the same
    setting (and the Web API URL bolt cannot take), so nothing is being ignored.
    """
    return "`token` will be unused" not in record.getMessage()


logging.getLogger("slack_bolt.AsyncApp").addFilter(_not_the_env_token_warning)
http_log = logging.getLogger("aiohttp.server")


@final
@dataclass(frozen=True, slots=True)
class Bot:
    """Everything :func:`build_app` made, for serving and for shutting down."""

    app: AsyncApp
    slash: slash.SlashHandler
    events: events.EventRouter
    ledger: Ledger
    standin: SlackStandIn | None
    redactor: Redactor
    lifecycle: Lifecycle
    recorder: Recorder | None = None

    async def drain(self, grace: float) -> bool:
        """Stop taking Slack's requests, then wait up to ``grace`` s for the replies still owed.

        Returns:
            Whether everything finished; what did not is cancelled.
        """
        self.lifecycle.stop_accepting()

        async def settled() -> None:
            await self.lifecycle.requests_done()  # these start the follow-ups awaited next
            await asyncio.gather(self.slash.drain(), self.events.pending.drain())

        try:
            await asyncio.wait_for(settled(), grace)
        except TimeoutError:
            return False
        return True


def build_app(
    settings: BotSettings,
    client: Harness,
    ledger: Ledger | None = None,
    recorder: Recorder | None = None,
    *,
    redaction: RedactionTable | None = None,
) -> Bot:
    """The bolt app with its middleware and listeners.

    ``process_before_response=True``: bolt answers as soon as the listener returns
    instead of polling for the ack every 10 ms; slow replies go out from a task of
    their own (:class:`bot.slash.SlashHandler`), so nothing waits on them.

    Args:
        settings: credentials, ports, budgets.
        client: the harness client (or anything shaped like :class:`bot.gateway.Harness`).
        ledger: seen events and thread bindings; by default the SQLite file under the
            bot's data dir (``python -m bot`` passes the deployment's database).
        recorder: where the traffic is recorded; by default, with ``BOT_RECORD`` set, a
            recorder that redacts the bot's own credentials (``python -m bot`` passes one that
            knows the worker's settings' secrets too).
        redaction: the hooks file's ``[redaction]`` table, masked in every text the bot
            writes too (``python -m bot`` passes it when ``HARNESS_HOOKS_CONFIG`` is set).

    Raises:
        ValueError: ``settings`` must not start a bot (:func:`bot.config.startup_problem`).
    """
    if (problem := startup_problem(settings)) is not None:
        raise ValueError(problem)
    # In local mode the token comes from authorize_locally; giving it here too makes bolt warn.
    token = None if settings.local else settings.token
    if recorder is None and settings.record is not None:
        recorder = open_recorder(settings)
    web_client = (
        AsyncWebClient(token=token, base_url=settings.web_api_url)
        if recorder is None
        else RecordingWebClient(recorder, token=token, base_url=settings.web_api_url)
    )
    standin = _standin(settings, recorder) if settings.local else None

    async def authorize_locally(enterprise_id: str | None, team_id: str | None) -> AuthorizeResult:
        return AuthorizeResult(
            enterprise_id=enterprise_id,
            team_id=team_id,
            bot_token=settings.token,
            bot_user_id=settings.bot_user_id,
            bot_id="BLOCAL",
        )

    app = AsyncApp(
        name="tiny-harness",
        signing_secret=settings.secret,
        client=web_client,
        authorize=authorize_locally if settings.local else None,
        # Before authorization, so that even bolt's own "could not authorize" reply is guarded.
        before_authorize=GuardResponseUrls(local_port=settings.port if settings.local else None),
        process_before_response=True,
        request_verification_enabled=True,
    )
    redactor = build_redactor(settings, redaction)
    app.error(AnswerBadRequest(redactor))
    if ledger is None:
        ledger = Ledger(database_url("", settings.ledger_path))
    app.use(LogRequests(redactor))
    app.use(DedupeEvents(ledger))
    if recorder is not None:
        app.use(RecordOutgoing(recorder))
    handler = slash.SlashHandler(client, settings, redactor)
    slash.register(app, handler, redactor)
    router = events.EventRouter(client, ledger, settings, redactor)
    events.register(app, router)
    actions.register(
        app,
        actions.HelpButtons(client, ledger, redactor),
        actions.StopButton(client, ledger, redactor),
    )
    return Bot(
        app=app,
        slash=handler,
        events=router,
        ledger=ledger,
        standin=standin,
        redactor=redactor,
        lifecycle=Lifecycle(settings.path),
        recorder=recorder,
    )


def _standin(settings: BotSettings, recorder: Recorder | None) -> SlackStandIn:
    """Local mode's Slack: the stand-in, imported here so a bot talking to Slack never loads it."""
    from bot.standin import PostStore, SlackStandIn  # developer tooling: local mode only

    return SlackStandIn(
        settings.bot_user_id,
        streaming=settings.standin_streaming,
        recorder=recorder,
        store=PostStore.under(settings.data_dir),  # its posts outlive a restart (issue 26)
    )


def open_recorder(settings: BotSettings, harness: Settings | None = None) -> Recorder:
    """The recorder of ``BOT_RECORD``, redacting the bot's credentials and ``harness``'s secrets;
    its header carries ``harness``'s settings that shape answers.

    Raises:
        RecordingError: the file cannot be appended to.
    """
    if settings.record is None:
        raise ValueError("BOT_RECORD is not set")
    secrets = harness.secret_values() if harness is not None else ()
    scrubber = Scrubber((*settings.secrets(), *secrets), settings.pseudonym_key())
    return Recorder(
        settings.record,
        scrubber,
        bot_user_id=settings.bot_user_id,
        local=settings.local,
        settings=harness,
        worker_posts=settings.web_api_is_standin,
    )


class RedactionTable(Protocol):
    """The hooks file's ``[redaction]`` table (``harness.hooks.config.load_redaction``)."""

    def redactor(self, *, secrets: Iterable[str] = ()) -> Redactor: ...


def build_redactor(settings: BotSettings, redaction: RedactionTable | None = None) -> Redactor:
    """The redactor of everything the bot writes: the usual secret shapes plus its own credentials.

    A signing secret looks like no known token family, so only knowing the value
    masks it (issue 9); an operator's patterns and fields (the hooks file's
    ``[redaction]``) are masked in the bot's own texts as the worker masks them (issue 26).
    """
    secrets = settings.secrets()
    return redaction.redactor(secrets=secrets) if redaction else Redactor(secrets=secrets)


@final
class AnswerBadRequest:
    """Bolt's error handler, the last resort: one log line and a 400, never a 500 or a traceback.

    With ``process_before_response=True`` a listener's exception becomes a 500
    (``AsyncioListenerRunner.run``) and a middleware's too (``AsyncApp.async_dispatch``);
    both then call this handler, and the response it returns replaces that 500.
    The gate (:mod:`bot.gate`) refuses malformed bodies before bolt, so reaching this
    is a fault of ours or of a call a listener made: Slack may retry, and
    :class:`bot.middleware.DedupeEvents` acks the retry of an event already claimed.

    Args:
        redactor: masks secrets in the logged error text.
    """

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor

    async def __call__(self, error: Exception) -> BoltResponse:
        """Log ``error`` in one line; answer 400."""
        first = self.redactor.redact_text((str(error).splitlines() or [""])[0][:200])
        log.warning("request not handled (%s: %s); answered 400", type(error).__name__, first)
        return BoltResponse(status=400, body="bad request")


def build_web_app(
    settings: BotSettings, bot: Bot, ready: health.Probe | None = None
) -> web.Application:
    """The aiohttp application: the gated Slack endpoint, the health endpoints, the stand-in.

    Args:
        settings: where Slack posts and how much.
        bot: what :func:`build_app` made.
        ready: ``/readyz``'s check besides draining (:meth:`bot.gateway.LazyHarness.ready`:
            Temporal reachable); none in tests that serve a bot without one.
    """
    web_app = web.Application(
        client_max_size=settings.max_body_bytes,
        handler_args={"logger": HttpErrorLog(http_log)},
        middlewares=[bot.lifecycle.middleware],
    )
    if settings.secret:
        gate = SlackGate(
            bot.app,
            signing_secret=settings.secret,
            max_body_bytes=settings.max_body_bytes,
            recorder=bot.recorder,
        )
        web_app.router.add_post(settings.path, gate.handle)
    else:  # Socket Mode without a signing secret: nothing could verify an HTTP request
        log.info(
            "no SLACK_SIGNING_SECRET: %s is not served; Slack's events come over Socket Mode",
            settings.path,
        )
    web_app.router.add_routes(health.routes(bot.lifecycle.readiness(ready)))
    if bot.standin is not None:
        web_app.router.add_routes(bot.standin.routes(STANDIN_PATH))
        log.info("local mode: Slack Web API calls go to the stand-in at %s", STANDIN_PATH)

    async def close(_: web.Application) -> None:
        if bot.standin is not None:
            bot.standin.flush()  # what it gathered since its last save (a restart loses nothing)
        await bot.slash.drain()
        await bot.events.pending.drain()
        await bot.ledger.aclose()
        if bot.recorder is not None:
            bot.recorder.close()

    web_app.on_cleanup.append(close)
    return web_app
