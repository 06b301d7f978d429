"""Slack scopes: the Web API methods this code calls, with the token scopes each needs.

One table, so the app manifest (``python -m bot.manifest``) asks for exactly the scopes
the code uses, and a test (``tests/unit/bot/test_manifest.py``) scans ``bot/`` and
``harness/`` for Web API calls and fails on a method missing here. Scopes are those
Slack's method reference lists for a bot token (docs.slack.dev/reference/methods);
calls through a ``response_url`` are not Web API calls and need none.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

HISTORY: Final = ("channels:history", "groups:history", "im:history", "mpim:history")
"""Reading a conversation needs the ``*:history`` scope of its kind (channel, private, DMs)."""

BOT_METHODS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "auth.test": (),  # bolt's authorization outside local mode: who the bot token is
        "chat.postMessage": ("chat:write",),  # the worker's posts, the bot's say()
        "chat.postEphemeral": ("chat:write",),  # refusals only their sender sees
        "chat.update": ("chat:write",),  # a turn's progress message, updated in place
        "chat.startStream": ("chat:write",),  # HARNESS_PROGRESS=stream: the progress message...
        "chat.appendStream": ("chat:write",),  # ...streamed...
        "chat.stopStream": ("chat:write",),  # ...and ended
        "assistant.threads.setStatus": ("chat:write",),  # what runs now, in the thread's status
        "reactions.add": ("reactions:write",),  # eyes, then check / x / stop on the request
        "reactions.remove": ("reactions:write",),  # the eyes, once the turn is over
        "conversations.history": HISTORY,  # a retried post looks for itself (issue 10)
        "conversations.replies": HISTORY,  # the same, in a thread
    }
)
"""Methods called with the bot token (``xoxb-…``) -> the bot scopes they need."""

APP_METHODS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "apps.connections.open": ("connections:write",),  # Socket Mode's WebSocket URL
    }
)
"""Methods called with the app-level token (``xapp-…``, Socket Mode only) -> its scopes."""


def bot_scopes() -> tuple[str, ...]:
    """Every bot scope the methods of :data:`BOT_METHODS` need, sorted, each once."""
    return tuple(sorted({scope for scopes in BOT_METHODS.values() for scope in scopes}))


def app_token_scopes() -> tuple[str, ...]:
    """The scopes the app-level token needs (Socket Mode), sorted."""
    return tuple(sorted({scope for scopes in APP_METHODS.values() for scope in scopes}))
