"""Slack payloads -> harness values, as pure functions (no I/O, no bolt objects).

Slash commands carry no thread, so a command addresses the one task of its channel
(``task_id(team, channel)``); messages carry a thread and become
``request.received`` contexts. Slack's own field names stop here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Final

from harness.hooks.contexts import (
    CommandInvokedContext,
    RequestReceivedContext,
    Role,
    TaskRef,
    TaskSnapshot,
)

_MENTION: Final = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^>]*)?>")


class EventKind(StrEnum):
    """How a message-like event is treated."""

    USER = "user"
    """A person wrote something new: may become a request."""
    BOT = "bot"
    """Written by a bot (ours or another): never a request, or bots would talk in loops."""
    EDIT = "edit"
    """An edit or deletion: the task already has the original; not sent again."""
    OTHER = "other"
    """Joins, topic changes, file shares without text and the like."""


def command_name(command: str) -> str:
    """``"/Model"`` -> ``"model"``."""
    return command.strip().lstrip("/").lower()


def slash_place(body: Mapping[str, Any]) -> tuple[str, str]:
    """``(team, channel)`` of a slash command payload."""
    return str(body.get("team_id", "")), str(body.get("channel_id", ""))


def command_context(
    body: Mapping[str, Any], *, task_id: str, snapshot: TaskSnapshot | None = None
) -> CommandInvokedContext:
    """A slash command payload as a ``command.invoked`` context for ``task_id``.

    ``role`` comes from ``snapshot`` when one is given, only as a hint: the task's
    workflow derives it again from its own participants (DESIGN.md).
    ``correlation_id`` is Slack's ``trigger_id``, unique per invocation, so sending
    the same invocation twice is one Temporal update, not two.
    """
    team, channel = slash_place(body)
    sender = str(body.get("user_id", ""))
    participants = snapshot.participants if snapshot else ()
    role = next((p.role for p in participants if p.user_id == sender), Role.NONE)
    trigger = str(body.get("trigger_id", ""))
    return CommandInvokedContext(
        task=TaskRef(task_id=task_id, team=team, channel=channel),
        participants=participants,
        correlation_id=f"slash/{trigger}" if trigger else "",
        entities={"response_url": str(body.get("response_url", ""))},
        command=command_name(str(body.get("command", ""))),
        args=str(body.get("text", "")).strip(),
        sender=sender,
        role=role,
        snapshot=snapshot,
    )


def classify(event: Mapping[str, Any]) -> EventKind:
    """What kind of message event this is (see :class:`EventKind`)."""
    subtype = event.get("subtype")
    if event.get("bot_id") or subtype == "bot_message":
        return EventKind.BOT
    if subtype in ("message_changed", "message_deleted") or event.get("edited"):
        return EventKind.EDIT
    if subtype not in (None, "thread_broadcast", "file_share") or not event.get("user"):
        return EventKind.OTHER
    return EventKind.USER


def mentions(event: Mapping[str, Any], user_id: str) -> bool:
    """Whether the event's text mentions ``user_id``."""
    return any(m == user_id for m in _MENTION.findall(str(event.get("text", ""))))


def strip_mention(text: str, user_id: str) -> str:
    """The text without mentions of ``user_id`` (the bot), whitespace tidied."""
    cleaned = re.sub(rf"<@{re.escape(user_id)}(?:\|[^>]*)?>", " ", text)
    return " ".join(cleaned.split())


def event_place(body: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """``(team, channel, thread_root, ts)``; a top-level message is its own thread root."""
    event = body.get("event") or {}
    team = str(body.get("team_id") or event.get("team", ""))
    ts = str(event.get("ts", ""))
    return team, str(event.get("channel", "")), str(event.get("thread_ts") or ts), ts


def dedupe_keys(body: Mapping[str, Any]) -> tuple[str, ...]:
    """Keys under which an event counts as seen.

    The event id catches Slack's retries; ``team/channel/ts`` catches the
    ``message`` + ``app_mention`` pair Slack sends for one mention (two event ids,
    one message).
    """
    keys = []
    if body.get("event_id"):
        keys.append(f"event:{body['event_id']}")
    team, channel, _, ts = event_place(body)
    event = body.get("event") or {}
    if ts and event.get("type") in ("message", "app_mention") and not event.get("subtype"):
        keys.append(f"message:{team}/{channel}/{ts}")
    return tuple(keys)


def request_context(
    body: Mapping[str, Any], *, bot_user_id: str, task_id: str, bound: bool = False
) -> RequestReceivedContext:
    """A message event as a ``request.received`` context addressed to ``task_id``.

    ``bound``: the message's thread already belongs to ``task_id``, so the task's ref
    carries that thread and the default route only delivers (never opens a task).
    Otherwise the ref has no thread and the route may open the channel's task.
    """
    event = body.get("event") or {}
    team, channel, thread, ts = event_place(body)
    return RequestReceivedContext(
        task=TaskRef(task_id=task_id, team=team, channel=channel, thread=thread if bound else ""),
        correlation_id=f"event/{body.get('event_id', '')}",
        text=strip_mention(str(event.get("text", "")), bot_user_id),
        sender=str(event.get("user", "")),
        channel=channel,
        thread=thread,
        event_id=str(body.get("event_id", "")),
        ts=ts,
    )
