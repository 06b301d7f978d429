"""Clicks as Slack sends them: the buttons of a posted message, and the ``block_actions`` body.

For ``python -m bot.say --click N`` and ``--click stop`` (local mode), which reads what the bot
posted back from the stand-in (:mod:`bot.standin`) and clicks one of its buttons. The listener
that receives the click is :mod:`bot.actions`; the buttons are built by the worker
(:func:`harness.channels.help_blocks`).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from harness.channels.progress import PROGRESS_BLOCK, STOP_ACTION
from harness.channels.slack import POST_EVENT_TYPE


def buttons(post: dict[str, Any]) -> list[dict[str, Any]]:
    """The buttons of a posted message, in order (those of every ``actions`` block)."""
    blocks = post.get("blocks")
    found: list[dict[str, Any]] = []
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "actions":
            found += [
                e
                for e in block.get("elements") or []
                if isinstance(e, dict) and e.get("type") == "button"
            ]
    return found


def last_question(posts: list[dict[str, Any]], channel: str, thread: str = "") -> dict[str, Any]:
    """The last message with buttons the bot posted in ``channel`` (and ``thread``), or ``{}``."""
    for post in reversed(posts):
        here = post.get("channel") == channel and thread in ("", post.get("thread_ts"))
        if (
            here
            and post.get("method") == "chat.postMessage"
            and buttons(post)
            and not is_progress(post)
        ):
            found: dict[str, Any] = post
            return found
    return {}


def is_progress(post: dict[str, Any]) -> bool:
    """Whether ``post`` is a turn's progress message (updated in place, not the answer)."""
    blocks = post.get("blocks")
    first = blocks[0] if isinstance(blocks, list) and blocks else {}
    return post.get("method") == "chat.startStream" or (
        isinstance(first, dict) and first.get("block_id") == PROGRESS_BLOCK
    )


def from_task(post: dict[str, Any]) -> bool:
    """Whether ``post`` is the worker's (the agent's answer, a question), not the bot's notice."""
    meta = post.get("metadata")
    return isinstance(meta, dict) and meta.get("event_type") == POST_EVENT_TYPE


def last_stop(posts: list[dict[str, Any]], channel: str, thread: str = "") -> dict[str, Any]:
    """The last progress message with a Stop button in ``channel`` (and ``thread``), or ``{}``."""
    for post in reversed(posts):
        here = post.get("channel") == channel and thread in ("", post.get("thread_ts"))
        if here and any(b.get("action_id") == STOP_ACTION for b in buttons(post)):
            found: dict[str, Any] = post
            return found
    return {}


def click_body(
    post: dict[str, Any], option: int, *, user: str, team: str, response_url: str
) -> str:
    """A ``block_actions`` form body, as Slack sends it, for a click on button ``option``.

    Args:
        post: the message as the stand-in kept it (its arguments plus ``ts``).
        option: 1 for the first button.
        user: who clicks.
        team: the workspace.
        response_url: where the bot's own answer to the click goes.
    """
    button = buttons(post)[option - 1]
    block = next(
        b for b in post["blocks"] if isinstance(b, dict) and button in (b.get("elements") or [])
    )
    ts, thread = str(post.get("ts", "")), str(post.get("thread_ts") or post.get("ts", ""))
    channel = str(post.get("channel", ""))
    payload = {
        "type": "block_actions",
        "api_app_id": "ALOCAL",
        "token": "local",
        "user": {"id": user, "username": user, "name": user, "team_id": team},
        "team": {"id": team, "domain": "local"},
        "channel": {"id": channel, "name": "local"},
        "container": {
            "type": "message",
            "message_ts": ts,
            "channel_id": channel,
            "is_ephemeral": False,
            "thread_ts": thread,
        },
        "message": {
            "type": "message",
            "user": "",
            "ts": ts,
            "thread_ts": thread,
            "text": post.get("text", ""),
            "blocks": post["blocks"],
        },
        "trigger_id": f"{uuid.uuid4().int % 10**12}.local",
        "response_url": response_url,
        "state": {"values": {}},
        "actions": [
            {
                "action_id": button.get("action_id"),
                "block_id": block.get("block_id"),
                "text": button.get("text"),
                "value": button.get("value"),
                "type": "button",
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
    return urlencode({"payload": json.dumps(payload)})
