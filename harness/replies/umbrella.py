"""The umbrella slash command: how a command that has no Slack command of its own is typed.

Slack keeps some names for itself (``/status``, ``/invite``, ``/help``: a user typing
them never reaches an app), so most commands are reached as ``/task <name>``; only
those whose spec says ``top_level`` get a slash command of their own. Which is which
is the command registry's fact (``commands``); this module only owns the umbrella's
name and the form, so harness texts (the conversation guard's "ask … to
`/task invite` you") and the bot spell commands alike.
"""

from __future__ import annotations

from typing import Final

UMBRELLA: Final = "task"
"""The one slash command (``/task``) under which every non-top-level command is reached."""

RESERVED: Final = frozenset(
    {
        "active",
        "apps",
        "archive",
        "away",
        "call",
        "collapse",
        "dm",
        "dnd",
        "expand",
        "feed",
        "help",
        "invite",
        "join",
        "leave",
        "me",
        "msg",
        "mute",
        "open",
        "prefs",
        "remind",
        "remove",
        "rename",
        "search",
        "shortcuts",
        "shrug",
        "star",
        "status",
        "topic",
        "who",
    }
)
"""Slack's built-in commands (slack.com/help/articles/201259356): an app cannot own these."""


def command_name(text: str) -> str:
    """The registry name of what was typed: ``"/Model"`` and ``"model"`` are ``"model"``."""
    return text.strip().lstrip("/").lower()


def invocation(name: str, *, top_level: bool = False) -> str:
    """How a user types command ``name``: ``/model`` (top level) or ``/task status``."""
    return f"/{name}" if top_level else f"/{UMBRELLA} {name}"


INVITE: Final = invocation("invite")
"""``/task invite``, which the conversation guard names (tests check the registry agrees)."""
