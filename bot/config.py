"""BotSettings: Slack credentials, the mode the bot runs in, where it listens, how long it waits.

Three modes (DESIGN.md, "Development mode is explicit"): **local** only with
``BOT_LOCAL=1`` on a loopback host (the development signing secret that
``python -m bot.say`` also uses, unless ``SLACK_SIGNING_SECRET`` is given, and Web
API calls sent to the stand-in, :mod:`bot.standin`, served by the bot itself);
otherwise **HTTP** with Slack's signing secret and bot token, or **Socket Mode** with an
app-level token and the bot token (no signing secret: nothing arrives over HTTP, the
events come over the websocket the token opened). :func:`startup_problem` is what
stops the bot at start; nothing here falls back to a development credential on its own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from harness.channels.web_api import (
    LOCAL_BOT_TOKEN,
    STANDIN_PATH,
    plain_http_problem,
    standin_url,
    web_api_url,
)
from harness.http import is_loopback

LOCAL_SIGNING_SECRET: Final = "local-dev-signing-secret"
RESPONSE_PATH: Final = "/_local/response/"
"""Where a slash command's ``response_url`` points in local mode: the stand-in's
(:mod:`bot.standin`), on the bot's own port. The bot's guard
(:class:`bot.middleware.GuardResponseUrls`) lets replies go only there."""
APP_TOKEN_PREFIX: Final = "xapp-"
"""Slack's app-level tokens, the only kind that opens a Socket Mode connection."""
__all__ = [
    "APP_TOKEN_PREFIX",
    "LOCAL_SIGNING_SECRET",
    "RESPONSE_PATH",
    "STANDIN_PATH",
    "BotSettings",
    "startup_problem",
]


class BotSettings(BaseSettings):
    """Every field is ``BOT_<FIELD>``; the Slack secrets also read Slack's usual names.

    The attribute docstrings are the settings reference (``docs/settings.md``).
    """

    model_config = SettingsConfigDict(
        env_prefix="BOT_",
        env_file=".env",
        extra="ignore",
        populate_by_name=True,
        use_attribute_docstrings=True,  # the docstrings are docs/settings.md (harness.settings_doc)
    )

    local: bool = False
    """``BOT_LOCAL=1`` is local mode, the only way to run without Slack: the public development
    signing secret (unless ``SLACK_SIGNING_SECRET`` is set), the Web API stand-in inside the bot,
    and a loopback ``BOT_HOST`` only (``make run`` sets it)."""
    signing_secret: str = Field(
        default="", validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "BOT_SIGNING_SECRET")
    )
    """Slack's signing secret (Basic Information → Signing Secret): every HTTP request's signature
    is checked with it; required in HTTP mode."""
    bot_token: str = Field(
        default="", validation_alias=AliasChoices("SLACK_BOT_TOKEN", "BOT_BOT_TOKEN")
    )
    """The bot token (``xoxb-…``, OAuth & Permissions → Bot User OAuth Token) the bot calls Slack's
    Web API with; required outside local mode. The worker reads the same variable."""
    app_token: str = Field(
        default="", validation_alias=AliasChoices("SLACK_APP_TOKEN", "BOT_APP_TOKEN")
    )
    """The app-level token (``xapp-…``, scope ``connections:write``): set, the bot takes
    Slack's events over Socket Mode (:mod:`bot.socket_mode`), needing no public URL and
    no signing secret; ignored in local mode."""
    standin_streaming: bool = True
    """Local mode: whether the Web API stand-in offers Slack's streaming methods
    (``chat.startStream``, …); ``0`` refuses them as a workspace without them does, to see the
    worker fall back to ``chat.update`` (with ``HARNESS_PROGRESS=stream``)."""
    host: str = "127.0.0.1"
    """Where the HTTP endpoint listens; any address behind your TLS proxy, loopback only in local
    mode."""
    port: int = 3000
    """The HTTP endpoint's port; in local mode the worker finds the stand-in here too."""
    path: str = "/slack/events"
    """The URL path Slack posts events, commands and clicks to (the manifest's request URLs)."""
    api_url: str = Field(
        default="", validation_alias=AliasChoices("BOT_API_URL", "HARNESS_SLACK_API_URL")
    )
    """Slack Web API base URL; by default Slack's, or the stand-in in local mode. The
    worker's ``HARNESS_SLACK_API_URL`` is read too, so one variable moves both."""
    data_dir: Path = Field(
        default=Path(".data"), validation_alias=AliasChoices("HARNESS_DATA_DIR", "BOT_DATA_DIR")
    )
    """Where the bot keeps ``bot-ledger.sqlite3`` (Slack events already handled, thread → task
    bindings) when ``HARNESS_DATABASE_URL`` is unset; the worker's ``HARNESS_DATA_DIR``, which
    wins over ``BOT_DATA_DIR``. That file is one host's: bot replicas on several hosts share
    ``HARNESS_DATABASE_URL`` instead."""
    ack_budget_seconds: float = Field(default=2.0, gt=0, le=2.5)
    """How long a slash command waits for the task's answer before the ack says "working on it" and
    the answer follows by ``response_url`` (Slack's hard limit is 3 s)."""
    reply_deadline_seconds: float = Field(default=30.0, gt=0)
    """How long a slash command's follow-up waits for the task before the user is told it timed
    out."""
    max_body_bytes: int = Field(default=256 * 1024, gt=0)
    """The largest request body taken; a larger one is refused with 413 before it is parsed."""
    shutdown_grace_seconds: float = Field(default=20.0, ge=0)
    """How long the replies still owed (slash follow-ups, messages waiting on their task) may
    take after SIGTERM or SIGINT before the bot exits anyway; keep it below the orchestrator's
    kill timeout (Kubernetes: 30 s)."""
    record: Path | None = None
    """``BOT_RECORD=FILE`` appends every request Slack sends and everything the bot answers and
    posts (Web API calls, ``response_url`` posts, Socket Mode acks; in local mode the worker's
    posts too) to FILE, one JSON line each (``docs/recording.md``), for ``python -m bot.replay``.
    Signatures are dropped and secrets redacted before anything is written. Off by default."""
    record_pseudonymise: bool = False
    """With ``BOT_RECORD``: replace Slack's user, channel and team ids by consistent stand-ins,
    so a recording can be shared outside the workspace."""
    record_pseudonym_key: str = ""
    """The key of those stand-ins; by default one derived from the bot's signing secret (or app
    token), so that a restarted bot, or another recording of the same bot, names an id the same
    way. Set it to share one naming across bots."""
    bot_user_id: str = "UBOTLOCAL"
    """The bot's own user id in local mode (a real token learns it from ``auth.test``)."""

    @property
    def secret(self) -> str:
        """The signing secret in use: the configured one, or in local mode the development one."""
        return self.signing_secret or (LOCAL_SIGNING_SECRET if self.local else "")

    @property
    def token(self) -> str:
        """The bot token in use: the configured one, or in local mode a dummy the stand-in takes."""
        return self.bot_token or (LOCAL_BOT_TOKEN if self.local else "")

    @property
    def socket_mode(self) -> bool:
        """Slack delivers over Socket Mode; never in local mode, which talks to no Slack."""
        return bool(self.app_token) and not self.local

    @property
    def mode(self) -> str:
        """The mode's name, as the start log line says it."""
        if self.local:
            return "local mode"
        return "Socket Mode" if self.socket_mode else "HTTP mode"

    @property
    def web_api_url(self) -> str:
        """Where the Web API client sends calls."""
        return web_api_url(
            explicit=self.api_url,
            local=self.local,
            token=self.token,
            host=self.host,
            port=self.port,
        )

    @property
    def web_api_is_standin(self) -> bool:
        """Local mode with the Web API at this bot's own stand-in, where the worker posts too
        (unless ``BOT_API_URL`` moved it): the stand-in sees, and records, the worker's calls."""
        if not self.local:
            return False
        url, own = urlsplit(self.web_api_url), urlsplit(standin_url(self.host, self.port))
        try:
            same_port = url.port == own.port
        except ValueError:  # a port that is no number: not ours
            return False
        same_host = url.hostname == own.hostname or is_loopback(url.hostname or "")
        return same_port and same_host and url.path == STANDIN_PATH

    @property
    def ledger_path(self) -> Path:
        """The SQLite file of seen events and thread bindings, without ``HARNESS_DATABASE_URL``."""
        return self.data_dir / "bot-ledger.sqlite3"

    def pseudonym_key(self) -> bytes | None:
        """The key of recorded ids' stand-ins, or ``None`` when ids are recorded as they are."""
        if not self.record_pseudonymise:
            return None
        seed = self.record_pseudonym_key or self.secret or self.app_token or self.token
        return hashlib.sha256(b"tiny-harness recording pseudonyms\0" + seed.encode()).digest()

    def secrets(self) -> tuple[str, ...]:
        """Every credential the bot holds, for the redactor of its replies (issue 9)."""
        found = (self.signing_secret, self.bot_token, self.app_token, self.record_pseudonym_key)
        return tuple(s for s in found if s)


def startup_problem(settings: BotSettings) -> str | None:
    """Why the bot must not start with ``settings``, in one line that says how to fix it.

    The development secret is public (it is in this file), so a bot that answers it
    where others can reach it takes forged requests (issue 9): local mode is
    explicit and loopback-only, and any other mode needs Slack's own credentials.

    Returns:
        ``None`` when the bot may start.
    """
    if settings.local and not is_loopback(settings.host):
        return (
            f"BOT_LOCAL=1 accepts the public development signing secret, so it listens only on "
            f"a loopback host, and BOT_HOST={settings.host} is not one: set BOT_HOST=127.0.0.1, "
            "or unset BOT_LOCAL and set SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN"
        )
    unsafe = plain_http_problem(settings.web_api_url, settings.bot_token, setting="BOT_API_URL")
    if unsafe is not None or settings.local:
        return unsafe
    if settings.socket_mode:
        return _socket_mode_problem(settings)
    given = {"SLACK_SIGNING_SECRET": settings.signing_secret, "SLACK_BOT_TOKEN": settings.bot_token}
    missing = [name for name, value in given.items() if not value]
    if not missing:
        return None
    names = " and ".join(missing)
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"{names} {verb} not set: set {'it' if len(missing) == 1 else 'them'} from the Slack "
        "app's settings (Basic Information → Signing Secret; OAuth & Permissions → Bot User "
        "OAuth Token), or set BOT_LOCAL=1 to run locally with the development secret and the "
        "Web API stand-in (what `make run` does)"
    )


def _socket_mode_problem(settings: BotSettings) -> str | None:
    """Socket Mode needs an app-level token and the bot token; the signing secret is optional.

    Slack signs HTTP requests; over Socket Mode nothing arrives by HTTP (bolt skips
    the check there), so demanding the secret would only block a working setup.
    """
    if not settings.app_token.startswith(APP_TOKEN_PREFIX):
        return (
            f"SLACK_APP_TOKEN is not an app-level token (those start with {APP_TOKEN_PREFIX}): "
            "generate one under Basic Information → App-Level Tokens with the scope "
            "connections:write, or unset SLACK_APP_TOKEN to take events over HTTP"
        )
    if not settings.bot_token:
        return (
            "SLACK_BOT_TOKEN is not set: Socket Mode needs it besides SLACK_APP_TOKEN; set it "
            "from the Slack app's settings (OAuth & Permissions → Bot User OAuth Token)"
        )
    return None
