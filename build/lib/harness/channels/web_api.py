"""Where Slack Web API calls go, and with which token: one rule for the bot and the worker.

Both processes post to Slack (the bot its acknowledgements, the worker the agent's
replies), so both must reach the same place (issue 11: the worker kept posting to a
stand-in on port 3000 after the bot had moved, and never to real Slack). The rule:
an explicit URL wins; local mode, or no token at all, means the stand-in the local
bot serves on its own host and port; a token otherwise means Slack's own API. A
token is never sent over plain HTTP to a host that is not loopback.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from harness.http import is_loopback

SLACK_API_URL: Final = "https://slack.com/api/"
STANDIN_PATH: Final = "/_local/api/"
"""Where the local bot serves its Web API stand-in (:mod:`bot.standin`)."""
LOCAL_BOT_TOKEN: Final = "xoxb-local-dev"
"""The token sent to the stand-in when none is configured; it checks none."""


def standin_url(host: str, port: int) -> str:
    """The stand-in's base URL on the local bot at ``host``:``port``."""
    netloc = f"[{host}]" if ":" in host else host
    return f"http://{netloc}:{port}{STANDIN_PATH}"


def web_api_url(*, explicit: str, local: bool, token: str, host: str, port: int) -> str:
    """The Web API base URL a process posts to.

    Args:
        explicit: ``HARNESS_SLACK_API_URL`` (or the bot's ``BOT_API_URL``); wins when set.
        local: ``BOT_LOCAL=1``: everything goes to the local bot's stand-in.
        token: the bot token; without one only the stand-in can be reached.
        host: ``BOT_HOST``, where the local bot (and its stand-in) listens.
        port: ``BOT_PORT``.
    """
    if explicit:
        return explicit
    if local or not token:
        return standin_url(host, port)
    return SLACK_API_URL


def plain_http_problem(url: str, token: str, *, setting: str) -> str | None:
    """Why ``token`` must not be sent to ``url``, or ``None`` when it may.

    Over plain HTTP anyone on the path reads the token; only a loopback host (the
    local stand-in, a recording server in a test) is exempt.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return (
            f"{setting}={url!r} is not an http(s) URL: set it to Slack's API base URL, "
            f"such as {SLACK_API_URL}"
        )
    if not token or parts.scheme == "https" or is_loopback(parts.hostname):
        return None
    return (
        f"{setting}={url} would send the Slack bot token over plain HTTP to {parts.hostname}, "
        "which is not a loopback host: use an https:// URL (or a loopback host for a stand-in)"
    )
