"""BotSettings: Slack credentials, where the bot listens, and how long it waits before acking.

Without credentials the bot runs locally: a fixed development signing secret that
``python -m bot.say`` also uses, a dummy bot token, and Web API calls sent to the
local stand-in (:mod:`bot.standin`) served by the bot itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_SIGNING_SECRET: Final = "local-dev-signing-secret"
LOCAL_BOT_TOKEN: Final = "xoxb-local-dev"
STANDIN_PATH: Final = "/_local/api/"


class BotSettings(BaseSettings):
    """Every field is ``BOT_<FIELD>``; the Slack secrets also read Slack's usual names.

    Attributes:
        ack_budget_seconds: how long a slash command may wait for the task before the
            ack says "working on it" (Slack's hard limit is 3 s).
        reply_deadline_seconds: how long the follow-up waits before reporting a timeout.
    """

    model_config = SettingsConfigDict(
        env_prefix="BOT_", env_file=".env", extra="ignore", populate_by_name=True
    )

    signing_secret: str = Field(
        default="", validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "BOT_SIGNING_SECRET")
    )
    bot_token: str = Field(
        default="", validation_alias=AliasChoices("SLACK_BOT_TOKEN", "BOT_BOT_TOKEN")
    )
    app_token: str = Field(
        default="", validation_alias=AliasChoices("SLACK_APP_TOKEN", "BOT_APP_TOKEN")
    )
    host: str = "127.0.0.1"
    port: int = 3000
    path: str = "/slack/events"
    api_url: str = ""
    """Slack Web API base URL; the local stand-in when no bot token is configured."""
    data_dir: Path = Field(
        default=Path(".data"), validation_alias=AliasChoices("HARNESS_DATA_DIR", "BOT_DATA_DIR")
    )
    ack_budget_seconds: float = Field(default=2.0, gt=0, le=2.5)
    reply_deadline_seconds: float = Field(default=30.0, gt=0)
    max_body_bytes: int = Field(default=256 * 1024, gt=0)
    bot_user_id: str = "UBOTLOCAL"
    """The bot's own user id in local mode (a real token learns it from ``auth.test``)."""

    @property
    def local(self) -> bool:
        """No real bot token: Web API calls go to the stand-in."""
        return not self.bot_token

    @property
    def secret(self) -> str:
        """The signing secret in use."""
        return self.signing_secret or LOCAL_SIGNING_SECRET

    @property
    def token(self) -> str:
        """The bot token in use."""
        return self.bot_token or LOCAL_BOT_TOKEN

    @property
    def web_api_url(self) -> str:
        """Where the Web API client sends calls."""
        if self.api_url:
            return self.api_url
        if self.local:
            return f"http://{self.host}:{self.port}{STANDIN_PATH}"
        return "https://slack.com/api/"

    @property
    def ledger_path(self) -> Path:
        """The SQLite file of seen events and thread bindings."""
        return self.data_dir / "bot-ledger.sqlite3"
