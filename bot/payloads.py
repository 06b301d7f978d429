"""Slack payloads -> harness values, as pure functions (no I/O, no bolt objects).

Slash commands carry no thread, so a command addresses the one task of its channel
(``task_id(team, channel)``); messages carry a thread and become
``request.received`` contexts. Slack's own field names and its text markup
(:mod:`bot.markup`) stop here. Every function takes any JSON: the gate
(:mod:`bot.envelope`) already refuses bodies whose shape bolt cannot read, but a
value of an unexpected type still reads here as empty, never as an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from bot.markup import mentioned_users, plain_text, strip_mention
from commands import COMMANDS, invocation_of
from commands.registry import Registry
from commands.surface import resolve
from harness.domain import Role, TaskRef, TaskSnapshot
from harness.hooks.contexts import CommandInvokedContext, RequestReceivedContext
from harness.replies import umbrella

__all__ = [
    "EventKind",
    "classify",
    "command_context",
    "command_name",
    "dedupe_keys",
    "event_place",
    "mentions",
    "obj",
    "request_context",
    "slash_command",
    "slash_place",
    "slash_text",
    "strip_mention",
    "text",
]


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


def obj(value: object) -> Mapping[str, Any]:
    """``value`` if it is a JSON object, else an empty one (never ``.get`` on a string)."""
    return value if isinstance(value, Mapping) else {}


def text(value: object) -> str:
    """``value`` if it is a string, else ``""`` (an id or text of the wrong type is absent)."""
    return value if isinstance(value, str) else ""


def command_name(command: object) -> str:
    """``"/Model"`` -> ``"model"``."""
    return umbrella.command_name(text(command))


def slash_place(body: Mapping[str, Any]) -> tuple[str, str]:
    """``(team, channel)`` of a slash command payload."""
    return text(body.get("team_id")), text(body.get("channel_id"))


def slash_text(body: Mapping[str, Any]) -> str:
    """A slash command's argument text as plain text (:func:`bot.markup.plain_text`)."""
    return plain_text(text(body.get("text"))).strip()


def slash_command(body: Mapping[str, Any], registry: Registry = COMMANDS) -> tuple[str, str] | None:
    """``(command name, arguments)`` the payload runs (``/task status`` -> ``("status", "")``).

    ``None`` when it runs no command of ``registry`` (:func:`commands.surface.resolve`).
    """
    return resolve(text(body.get("command")), slash_text(body), registry)


def command_context(
    body: Mapping[str, Any], *, task_id: str, snapshot: TaskSnapshot | None = None
) -> CommandInvokedContext:
    """A slash command payload as a ``command.invoked`` context for ``task_id``.

    The command is the registry's name (``/task status`` is ``status``) and its
    ``invocation`` how the registry spells it, which the task's replies use; a payload
    that runs no command keeps the typed name, and the task answers "unknown command".

    ``role`` comes from ``snapshot`` when one is given, only as a hint: the task's
    workflow derives it again from its own participants (DESIGN.md).
    ``correlation_id`` is Slack's ``trigger_id``, unique per invocation, so sending
    the same invocation twice is one Temporal update, not two. ``response_url`` is
    not passed on: only the bot posts to it, and in the context it would sit in
    Temporal's history (issue 9).
    """
    team, channel = slash_place(body)
    command, args = slash_command(body) or (command_name(body.get("command")), slash_text(body))
    sender = text(body.get("user_id"))
    participants = snapshot.participants if snapshot else ()
    role = next((p.role for p in participants if p.user_id == sender), Role.NONE)
    trigger = text(body.get("trigger_id"))
    return CommandInvokedContext(
        task=TaskRef(task_id=task_id, team=team, channel=channel),
        participants=participants,
        correlation_id=f"slash/{trigger}" if trigger else "",
        command=command,
        args=args,
        invocation=invocation_of(command),
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
    if subtype not in (None, "thread_broadcast", "file_share") or not text(event.get("user")):
        return EventKind.OTHER
    return EventKind.USER


def mentions(event: Mapping[str, Any], user_id: str) -> bool:
    """Whether the event's text mentions ``user_id``."""
    return user_id in mentioned_users(text(event.get("text")))


def event_place(body: Mapping[str, Any]) -> tuple[str, str, str, str]:
    """``(team, channel, thread_root, ts)``; a top-level message is its own thread root."""
    event = obj(body.get("event"))
    team = text(body.get("team_id")) or text(event.get("team"))
    ts = text(event.get("ts"))
    return team, text(event.get("channel")), text(event.get("thread_ts")) or ts, ts


def dedupe_keys(body: Mapping[str, Any]) -> tuple[str, ...]:
    """Keys under which an event counts as seen.

    The event id catches Slack's retries; ``team/channel/ts`` catches the
    ``message`` + ``app_mention`` pair Slack sends for one mention (two event ids,
    one message).
    """
    keys = []
    if event_id := text(body.get("event_id")):
        keys.append(f"event:{event_id}")
    team, channel, _, ts = event_place(body)
    event = obj(body.get("event"))
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
    The text is the plain text (:func:`bot.markup.plain_text`) without the bot's
    mention; the mention is removed first, while it is still markup.
    """
    event = obj(body.get("event"))
    team, channel, thread, ts = event_place(body)
    event_id = text(body.get("event_id"))
    return RequestReceivedContext(
        task=TaskRef(task_id=task_id, team=team, channel=channel, thread=thread if bound else ""),
        correlation_id=f"event/{event_id}",
        text=plain_text(strip_mention(text(event.get("text")), bot_user_id)),
        sender=text(event.get("user")),
        channel=channel,
        thread=thread,
        event_id=event_id,
        ts=ts,
    )
