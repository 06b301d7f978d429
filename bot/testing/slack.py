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
from typing import Any, Final, final

import aiohttp

from bot.say.as_slack import mention_body, signed_headers, slash_body
from bot.say.clicks import buttons, click_body, from_task, is_progress, last_question, last_stop
from bot.standin import POSTS_PATH, RESPONSE_PATH, SHOWN_SUFFIX
from bot.testing.results import Clicked, Message, Post, Sent, SlashReply
from bot.testing.stack import Stack

FORM: Final = "application/x-www-form-urlencoded"
JSON: Final = "application/json"
WORKING: Final = "working on `"
"""How an ack that is not the answer starts (:func:`bot.replies.working`)."""
WAIT_SECONDS: Final = 30.0
"""How long a wait lasts by default: the bot's reply deadline (``BOT_REPLY_DEADLINE_SECONDS``)."""
POLL_SECONDS: Final = 0.05
SHOWN_POSTS: Final = 3
"""How many of the latest posts a timeout's message quotes (each cut to 60 characters)."""
_CONVERSATIONS: Final[dict[str, str]] = {}
"""A bot's URL -> the channel its clients talk in when they name none (:meth:`SlackClient.of`)."""


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
        """A client of ``stack``'s bot as ``user``, in ``channel``.

        With no ``channel``, in the channel of the stack's conversation
        (:func:`new_conversation`; under pytest, the test's): another person made with
        ``SlackClient.of(stack, user="U2")`` talks to the same task, as in a real channel.
        A task of their own takes ``channel=new_channel()``.
        """
        return cls(
            stack.bot_url,
            signing_secret=stack.signing_secret,
            bot_user=stack.bot_user,
            channel=channel or _CONVERSATIONS.get(stack.bot_url) or new_conversation(stack),
            user=user,
        )

    def as_user(self, user: str) -> SlackClient:
        """The same bot and channel (so the same task), as ``user``."""
        return SlackClient(
            self.bot_url,
            signing_secret=self.signing_secret,
            bot_user=self.bot_user,
            team=self.team,
            channel=self.channel,
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
        return Sent(sent.status, sent.text, channel, thread or ts, ts, text)

    async def slash(
        self, text: str, *, user: str = "", channel: str = "", timeout: float = WAIT_SECONDS
    ) -> SlashReply:
        """``/model gpt-x``: the reply the sender sees, waiting for a late one (``timeout``).

        Raises:
            TimeoutError: the ack said it was working, and no late reply came in ``timeout`` s.
        """
        __tracebackhide__ = True  # a failing test shows its own line and the message
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
            shown = await self._late_reply(key, timeout, text)
        return SlashReply(
            sent.status,
            str(shown.get("text", "")),
            shown.get("response_type") == "in_channel",
            str(ack.get("text", "")),
            key,
        )

    async def status(self, *, user: str = "", channel: str = "") -> str:
        """``/task status`` of the channel's task, as its sender reads it."""
        __tracebackhide__ = True
        return (await self.slash("/task status", user=user, channel=channel)).text

    async def click(
        self, option: int, *, user: str = "", channel: str = "", thread: str = ""
    ) -> Clicked:
        """Click button ``option`` (1: the first) of the last question with buttons posted in
        ``channel`` (in ``thread``, if given), as Slack sends the click.

        Raises:
            LookupError: no question with buttons was posted there yet, or it has no such button.
        """
        __tracebackhide__ = True
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
        __tracebackhide__ = True
        channel = channel or self.channel
        progress = last_stop(await self.posts(), channel, thread)
        if not progress:
            raise LookupError(
                f"no progress message with a Stop button in {channel} "
                "(a streamed one has none: send `/task stop`)"
            )
        return await self._click(progress, 1, user=user)

    async def _click(self, post: Post, option: int, *, user: str) -> Clicked:
        __tracebackhide__ = True
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
        return Clicked(sent.status, values[option - 1], Message.of(post), key)

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
        what: str = "a matching post",
    ) -> Post:
        """The first post in ``channel`` (from index ``since`` of :meth:`posts` on) that
        ``predicate`` accepts, once there is one. Other channels are other tests' tasks.

        Raises:
            TimeoutError: none within ``timeout`` seconds: one line naming ``what`` was
                awaited, where, and the last posts there.
        """
        __tracebackhide__ = True
        channel, deadline = channel or self.channel, time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while True:
                posts = await _posts(session, self.base, since)
                here = [post for post in posts if post.get("channel") == channel]
                for post in here:  # a loop, not a generator: its frame would show in a traceback
                    if predicate(post):
                        return post
                if time.monotonic() > deadline:
                    said = "; ".join(_quote(p.get("text")) for p in here[-SHOWN_POSTS:])
                    raise TimeoutError(
                        f"waited {timeout:g} s for {what} in {channel}; the last posts "
                        f"there: {said or 'none'}"
                    )
                await asyncio.sleep(POLL_SECONDS)

    async def answer(self, to: Sent, *, timeout: float = WAIT_SECONDS) -> Message:
        """The task's first message after ``to`` in its thread (an answer or a question).

        The bot's own notices ("started a task …") and progress messages are not answers.

        Raises:
            TimeoutError: none within ``timeout`` seconds (the message names ``to``).
        """
        __tracebackhide__ = True

        def answers(post: Post) -> bool:
            later = float(post.get("ts") or 0) > float(to.ts)
            return (
                later
                and post.get("thread_ts") == to.thread
                and post.get("method") == "chat.postMessage"
                and from_task(post)
                and not is_progress(post)
            )

        what = f"an answer to {_quote(to.said)} in thread {to.thread}"
        found = await self.wait_for_post(answers, channel=to.channel, timeout=timeout, what=what)
        return Message.of(found)

    async def responses(self, key: str) -> list[dict[str, Any]]:
        """What the bot posted to one response URL so far (a click's or a command's ``key``)."""
        async with aiohttp.ClientSession() as session:
            async with session.get(self.base + RESPONSE_PATH + key) as response:
                found: list[dict[str, Any]] = await response.json()
        return found

    async def _late_reply(self, key: str, timeout: float, command: str) -> dict[str, Any]:
        """The late reply as its sender sees it (it replaced, or deleted, the "working on" note)."""
        __tracebackhide__ = True
        deadline = time.monotonic() + timeout
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                async with session.get(self.base + RESPONSE_PATH + key + SHOWN_SUFFIX) as response:
                    shown: dict[str, Any] = await response.json()
                if shown["messages"]:
                    last: dict[str, Any] = shown["messages"][-1]
                    return last
                await asyncio.sleep(POLL_SECONDS)
        raise TimeoutError(
            f"waited {timeout:g} s for the late reply to {_quote(command)} (its ack said it "
            "was working on it)"
        )


def new_channel() -> str:
    """A channel id no other test uses: each channel has its own task."""
    return f"C{uuid.uuid4().hex[:10].upper()}"


def new_conversation(stack: Stack) -> str:
    """A fresh channel where the clients :meth:`SlackClient.of` makes for ``stack`` talk
    from now on, unless they name another (the pytest plugin starts one per test)."""
    channel = _CONVERSATIONS[stack.bot_url] = new_channel()
    return channel


def end_conversations() -> None:
    """Forget every stack's conversation: the next client of one opens a fresh channel."""
    _CONVERSATIONS.clear()


def _quote(text: object, limit: int = 60) -> str:
    """``text`` as a timeout's message quotes it: ``repr``, cut to ``limit`` characters."""
    shown = str(text or "")
    return repr(shown if len(shown) <= limit else shown[: limit - 1] + "…")


async def _posts(session: aiohttp.ClientSession, base: str, since: int = 0) -> list[Post]:
    """The posts from index ``since`` on, as ``posts[since:]`` (a negative one counts from the
    end): the stand-in sends only those after the first ``since`` (``?after=``)."""
    query = {"after": since} if since > 0 else {}
    async with session.get(base + POSTS_PATH, params=query) as response:
        if response.status == 404:
            raise LookupError(
                f"{base} keeps no posts: only a bot in local mode (BOT_LOCAL=1) "
                "has the Web API stand-in"
            )
        posts: list[Post] = await response.json()
    return posts if since >= 0 else posts[since:]
