"""Requests as Slack sends them: signed headers, a slash command's form body, a mention event.

Built here once for everything that talks to the bot as Slack would: ``bot.say``, the
testing kit (:mod:`bot.testing.slack`), the replay (:mod:`bot.replay.send`) and the benches.
"""

from __future__ import annotations

import json
import time
import uuid
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier


def signed_headers(
    secret: str, body: str, content_type: str, timestamp: int | None = None
) -> dict[str, str]:
    """Headers Slack would send with ``body``, signed with ``secret``."""
    ts = str(timestamp if timestamp is not None else int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature or "",
    }


def slash_body(text: str, *, user: str, team: str, channel: str, response_url: str) -> str:
    """A slash command form body for ``"/model gpt-x"``."""
    command, _, args = text.partition(" ")
    return urlencode(
        {
            "token": "local",
            "team_id": team,
            "team_domain": "local",
            "channel_id": channel,
            "channel_name": "local",
            "user_id": user,
            "user_name": user,
            "command": command,
            "text": args,
            "api_app_id": "ALOCAL",
            "response_url": response_url,
            "trigger_id": f"{uuid.uuid4().int % 10**12}.local",
        }
    )


def mention_body(
    text: str, *, user: str, team: str, channel: str, bot_user: str, thread: str = "", ts: str = ""
) -> str:
    """An ``app_mention`` event for ``text``; with ``thread``, a plain reply in that thread.

    ``ts`` is the message's own (now, when empty): a mention's ``ts`` is its task's thread.
    """
    ts = ts or f"{time.time():.6f}"
    event = {
        "type": "app_mention",
        "user": user,
        "text": f"<@{bot_user}> {text}",
        "ts": ts,
        "channel": channel,
        "event_ts": ts,
    }
    if thread:
        event.update(type="message", text=text, thread_ts=thread, channel_type="channel")
    return json.dumps(
        {
            "token": "local",
            "team_id": team,
            "api_app_id": "ALOCAL",
            "event": event,
            "type": "event_callback",
            "event_id": f"Ev{uuid.uuid4().hex[:10].upper()}",
            "event_time": int(time.time()),
        }
    )
