"""What :class:`~bot.testing.slack.SlackClient`'s calls return: what a person in Slack sees.

Each is a frozen dataclass read by attribute (``reply.text``, ``answer.ts``), whether it is
the bot's answer to a request (:class:`Sent`), the reply a slash command's sender sees
(:class:`SlashReply`), a click (:class:`Clicked`) or a message the task posted
(:class:`Message`). The stand-in's raw record of a message (:data:`Post`, a dict of its Web
API arguments) stays reachable as ``Message.post`` and is what ``posts()`` and
``wait_for_post()`` deal in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.say.clicks import buttons

Post = dict[str, Any]
"""One message the stand-in keeps: its Web API arguments, ``method`` and ``ts``."""


@dataclass(frozen=True)
class Sent:
    """A request the bot answered: its HTTP status and body; for a message, where it is."""

    status: int
    text: str
    """The bot's HTTP answer (empty for an event, which is answered in the thread)."""
    channel: str = ""
    thread: str = ""
    """The thread the message is in; a mention's own ``ts``, where its task answers."""
    ts: str = ""
    """The message's own ``ts``; the task's answer comes after it (:meth:`SlackClient.answer`)."""
    said: str = ""
    """What the message said: named when its answer does not come."""


@dataclass(frozen=True)
class SlashReply:
    """What the sender of a slash command sees in the end."""

    status: int
    text: str
    """The answer: the ack's text, or the late reply that took the "working on" note's place."""
    public: bool
    """Posted to the channel for everyone (``in_channel``), not only to the sender."""
    ack: str
    """The ack's own text (``working on `/task status` …`` when the answer came late)."""
    key: str
    """The stand-in's response URL key (:meth:`SlackClient.responses`)."""


@dataclass(frozen=True)
class Message:
    """A message posted in a channel (a task's answer, a question), as its people read it."""

    text: str
    channel: str
    thread: str
    """The thread it is in (``""`` at the channel's top level)."""
    ts: str
    buttons: tuple[str, ...]
    """Its buttons' labels, in order: a question's options (``click(n)`` clicks the n-th)."""
    post: Post = field(repr=False)
    """Everything the stand-in keeps of it: its Web API arguments, ``method``, ``blocks``."""

    @classmethod
    def of(cls, post: Post) -> Message:
        """The message the stand-in's ``post`` shows."""
        labels = [b.get("text") for b in buttons(post)]
        return cls(
            text=str(post.get("text") or ""),
            channel=str(post.get("channel") or ""),
            thread=str(post.get("thread_ts") or ""),
            ts=str(post.get("ts") or ""),
            buttons=tuple(str(t.get("text", "")) if isinstance(t, dict) else "" for t in labels),
            post=post,
        )


@dataclass(frozen=True)
class Clicked:
    """A click delivered: on which question, which button; the bot answers it afterwards."""

    status: int
    value: str
    question: Message
    """The message whose button was clicked."""
    key: str
    """The click's response URL key: the bot's own answer to it (the question is closed, …)."""
