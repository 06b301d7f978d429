"""SlackClient: what Slack sends a bot in local mode, and what that bot posted back.

A test talks to a running bot (:func:`bot.testing.stack.running_stack`, or ``make run``)
through the same signed requests Slack sends, built by the same functions ``python -m
bot.say`` uses (:mod:`bot.say.as_slack`, :mod:`bot.say.clicks`), and reads back what the bot and the
worker posted from the bot's Web API stand-in (:mod:`bot.standin`), late slash replies
included. It holds no connection between calls, so it works in whatever event loop a test
runs in (pytest-asyncio's strict or auto mode, any loop scope). It is not a fake Slack:
nothing here decides what the bot answers.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, final

import aiohttp

from bot.say.as_slack import mention_body, signed_headers, slash_body
from bot.say.clicks import buttons, click_body, from_task, is_progress, last_question, last_stop
from bot.standin import POSTS_PATH, RESPONSE_PATH, SHOWN_SUFFIX
from bot.testing.stack import Stack

Post = dict[str, Any]
"""One message the stand-in keeps: its Web API arguments, ``method`` and ``ts``."""
FORM: Final = "application/x-www-form-urlencoded"
JSON: Final = "application/json"
WORKING: Final = "working on `"
"""How an ack that is not the answer starts (:func:`bot.replies.working`)."""
WAIT_SECONDS: Final = 30.0
"""How long a wait lasts by default: the bot's reply deadline (``BOT_REPLY_DEADLINE_SECONDS``)."""
POLL_SECONDS: Final = 0.05


@dataclass(frozen=True)
class Sent:
    """A request the bot answered: its HTTP status and body; for a message, where it is."""

    status: int
    text: str
    channel: str = ""
    thread: str = ""
    """The thread the message is in; a mention's own ``ts``, where its task answers."""
    ts: str = ""
    """The message's own ``ts``; the task's answer comes after it (:meth:`SlackClient.answer`)."""


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
class Clicked:
    """A click delivered: on which question, which button; the bot answers it afterwards."""

    status: int
    value: str
    question: Post = field(repr=False)
    key: str
    """The click's response URL key: the bot's own answer to it (the question is closed, …)."""


@final
class SlackClient:
    """Signed requests to one bot, as a workspace's people would send them.

    Args:
        bot_url: the bot's Slack endpoint (``…/slack/events``).
        signing_secret: the bot's signing secret.
        bot_user: the bot's user id, which a mention addresses.
        team: the workspace.
        channel: the channel used when a call names none (one channel, one task).
        user: who speaks when a call names no one.
    """

    def __init__(
        self,
        bot_url: str,
        *,
        signing_secret: str,
        bot_user: str = "UBOTLOCAL",
        team: str = "T0KIT",
        channel: str = "",
        user: str = "U0KIT",
    ) -> None:
        self.bot_url = bot_url
        self.base = bot_url.removesuffix("/slack/events")
        self.signing_secret = signing_secret
        self.bot_user = bot_user
        self.team = team
        self.channel = channel or new_channel()
        self.user = user

    @classmethod
    def of(cls, stack: Stack, *, channel: str = "", user: str = "U0KIT") -> SlackClient:
        """A client of ``stack``'s bot, in ``channel`` (a fresh one when empty)."""
        return cls(
            stack.bot_url,
            signing_secret=stack.signing_secret,
            bot_user=stack.bot_user,
            channel=channel,
            user=user,
        )

    async def send(
        self,
        body: str | bytes,
        content_type: str,
        *,
        headers: dict[str, str] | None = None,
        timestamp: int | None = None,
    ) -> Sent:
        """POST ``body`` (hand-written or recorded) signed now, as Slack would; ``headers`` on top.

        Args:
            body: the raw request body, byte for byte what is signed.
            content_type: ``application/json`` (events) or the form type (commands, clicks).
            headers: more headers (``X-Slack-Retry-Num``, …), or a signature to override.
            timestamp: the signature's time (now when ``None``; an old one is refused).
        """
        raw = body.decode() if isinstance(body, bytes) else body
        signed = signed_headers(self.signing_secret, raw, content_type, timestamp) | (headers or {})
        async with aiohttp.ClientSession() as session:
            async with session.post(self.bot_url, data=raw.encode(), headers=signed) as response:
                return Sent(response.status, await response.text())

    async def mention(self, text: str, *, user: str = "", channel: str = "") -> Sent:
        """``@bot text``: starts the channel's task, or joins it; the ``ts`` is its thread."""
        return await self._message(text, user=user, channel=channel, thread="")

    async def reply(self, text: str, *, thread: str, user: str = "", channel: str = "") -> Sent:
        """A plain message in ``thread`` (a mention's ``ts``): it goes to that thread's task."""
        return await self._message(text, user=user, channel=channel, thread=thread)

    async def _message(self, text: str, *, user: str, channel: str, thread: str) -> Sent:
        ts, channel = f"{time.time():.6f}", channel or self.channel
        body = mention_body(
            text,
            user=user or self.user,
            team=self.team,
            channel=channel,
            bot_user=self.bot_user,
            thread=thread,
            ts=ts,
        )
        sent = await self.send(body, JSON)
        return Sent(sent.status, sent.text, channel, thread or ts, ts)

    async def slash(
        self, text: str, *, user: str = "", channel: str = "", timeout: float = WAIT_SECONDS
    ) -> SlashReply:
        """``/model gpt-x``: the reply the sender sees, waiting for a late one (``timeout``)."""
        key = uuid.uuid4().hex
        body = slash_body(
            text,
            user=user or self.user,
            team=self.team,
            channel=channel or self.channel,
            response_url=self.base + RESPONSE_PATH + key,
        )
        sent = await self.send(body, FORM)
        try:
            ack = json.loads(sent.text)
        except ValueError:
            ack = None
        if not isinstance(ack, dict):  # a refusal (401, 413) is plain text
            ack = {"text": sent.text}
        shown = ack
        if sent.status == 200 and str(ack.get("text", "")).startswith(WORKING):
            shown = await self._late_reply(key, timeout)
        return SlashReply(
            sent.status,
            str(shown.get("text", "")),
            shown.get("response_type") == "in_channel",
            str(ack.get("text", "")),
            key,
        )

    async def status(self, *, user: str = "", channel: str = "") -> str:
        """``/task status`` of the channel's task, as its sender reads it."""
        return (await self.slash("/task status", user=user, channel=channel)).text

    async def click(
        self, option: int, *, user: str = "", channel: str = "", thread: str = ""
    ) -> Clicked:
        """Click button ``option`` (1: the first) of the last question with buttons posted in
        ``channel`` (in ``thread``, if given), as Slack sends the click.

        Raises:
            LookupError: no question with buttons was posted there yet, or it has no such button.
        """
        channel = channel or self.channel
        question = last_question(await self.posts(), channel, thread)
        if not question:
            where = f"{channel} (thread {thread})" if thread else channel
            raise LookupError(
                f"no question with buttons in {where} yet: wait for it first "
                "(answer, wait_for_post)"
            )
        return await self._click(question, option, user=user)

    async def click_stop(self, *, user: str = "", channel: str = "", thread: str = "") -> Clicked:
        """Click the Stop button of the turn's progress message in ``channel`` (and ``thread``).

        Raises:
            LookupError: no progress message with a Stop button is there.
        """
        channel = channel or self.channel
        progress = last_stop(await self.posts(), channel, thread)
        if not progress:
            raise LookupError(
                f"no progress message with a Stop button in {channel} "
                "(a streamed one has none: send `/task stop`)"
            )
        return await self._click(progress, 1, user=user)

    async def _click(self, post: Post, option: int, *, user: str) -> Clicked:
        values = [str(b.get("value", "")) for b in buttons(post)]
        if not 1 <= option <= len(values):
            raise LookupError(f"button {option} of {values}: there are {len(values)}")
        key = uuid.uuid4().hex
        body = click_body(
            post,
            option,
            user=user or self.user,
            team=self.team,
            response_url=self.base + RESPONSE_PATH + key,
        )
        sent = await self.send(body, FORM)
        return Clicked(sent.status, values[option - 1], post, key)

    async def posts(self) -> list[Post]:
        """Every message posted so far (every channel), oldest first, as it reads now.

        Raises:
            LookupError: the bot has no stand-in (it is not in local mode).
        """
        async with aiohttp.ClientSession() as session:
            return await _posts(session, self.base)

    async def wait_for_post(
        self,
        predicate: Callable[[Post], bool],
        *,
        channel: str = "",
        timeout: float = WAIT_SECONDS,
        since: int = 0,
    ) -> Post:
        """The first post in ``channel`` (from index ``since`` of :meth:`posts` on) that
        ``predicate`` accepts, once there is one. Other channels are other tests' tasks.

        Raises:
            TimeoutError: none within ``timeout`` seconds; says what was posted meanwhile.
        """
        channel, deadline = channel or self.channel, time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while True:
                posts = (await _posts(session, self.base))[since:]
                here = [post for post in posts if post.get("channel") == channel]
                found = next((post for post in here if predicate(post)), None)
                if found is not None:
                    return found
                if time.monotonic() > deadline:
                    said = "; ".join(repr(p.get("text")) for p in here[-5:]) or "nothing"
                    raise TimeoutError(
                        f"no matching post in {channel} within {timeout:.0f} s; "
                        f"the last ones there: {said}"
                    )
                await asyncio.sleep(POLL_SECONDS)

    async def answer(self, to: Sent, *, timeout: float = WAIT_SECONDS) -> Post:
        """The task's first message after ``to`` in its thread (an answer or a question).

        The bot's own notices ("started a task …") and progress messages are not answers.

        Raises:
            TimeoutError: none within ``timeout`` seconds.
        """

        def answers(post: Post) -> bool:
            later = float(post.get("ts") or 0) > float(to.ts)
            return (
                later
                and post.get("thread_ts") == to.thread
                and post.get("method") == "chat.postMessage"
                and from_task(post)
                and not is_progress(post)
            )

        return await self.wait_for_post(answers, channel=to.channel, timeout=timeout)

    async def responses(self, key: str) -> list[dict[str, Any]]:
        """What the bot posted to one response URL so far (a click's or a command's ``key``)."""
        async with aiohttp.ClientSession() as session:
            async with session.get(self.base + RESPONSE_PATH + key) as response:
                found: list[dict[str, Any]] = await response.json()
        return found

    async def _late_reply(self, key: str, timeout: float) -> dict[str, Any]:
        """The late reply as its sender sees it (it replaced, or deleted, the "working on" note)."""
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                async with session.get(self.base + RESPONSE_PATH + key + SHOWN_SUFFIX) as response:
                    shown: dict[str, Any] = await response.json()
                if shown["messages"]:
                    last: dict[str, Any] = shown["messages"][-1]
                    return last
                await asyncio.sleep(POLL_SECONDS)
        raise TimeoutError(f"no late reply within {timeout:.0f} s (the ack said it was working)")


def new_channel() -> str:
    """A channel id no other test uses: each channel has its own task."""
    return f"C{uuid.uuid4().hex[:10].upper()}"


async def _posts(session: aiohttp.ClientSession, base: str) -> list[Post]:
    async with session.get(base + POSTS_PATH) as response:
        if response.status == 404:
            raise LookupError(
                f"{base} keeps no posts: only a bot in local mode (BOT_LOCAL=1) "
                "has the Web API stand-in"
            )
        posts: list[Post] = await response.json()
    return posts
