"""A task's thread as its people use it in the scenario tests of issue 14 (real bot, worker).

:class:`Thread` sends signed mentions, thread replies, slash commands and button clicks to
the bot and reads back what the worker posted through the bot's Web API stand-in;
:class:`Hold` holds a tool call mid-turn so a stop or a message arrives while it runs.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from bot.say.clicks import buttons, click_body
from bot.standin import POSTS_PATH

OWNER, COLLAB, WATCHER = "U0OWNER", "U0COLLAB", "U0WATCH"
HOLD = 'call echo {"text": "hold"}'
TEAM = "T0TEAM1"


class Hold:
    """Holds ``echo hold`` before it runs until released; counts holds and cancellations."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.held = 0
        self.cancelled = 0

    async def __call__(self, ctx) -> None:
        if ctx.call.name != "echo" or ctx.call.arguments.get("text") != "hold":
            return
        self.held += 1
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise

    async def until_held(self, count: int = 1) -> None:
        await until(lambda: self.held >= count, what=f"{count} held tool calls")


async def until(check, timeout: float = 20.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        await asyncio.sleep(0.05)
    return found


async def until_async(check, timeout: float = 20.0, what: str = "") -> None:
    """Wait until the coroutine function ``check`` says so."""
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"timed out waiting for {what or check}"
        await asyncio.sleep(0.1)


class Thread:
    """One task's thread in a fresh channel, as its people see it."""

    def __init__(self, slack, harness) -> None:
        self.slack = slack
        self.harness = harness
        self.channel = f"C{uuid.uuid4().hex[:8].upper()}"
        self.root = f"{time.time():.6f}"
        self.sent = 0

    def posts(self, user: str = "") -> list[str]:
        """What was posted in the channel: public posts, or what only ``user`` sees."""
        method = "chat.postEphemeral" if user else "chat.postMessage"
        return [
            a["text"]
            for m, a in self.slack.bot.standin.calls
            if m == method
            and a.get("channel") == self.channel
            and (not user or a.get("user") == user)
        ]

    async def start(self, text: str) -> None:
        status, _ = await self.slack.event(
            "app_mention.json",
            channel=self.channel,
            ts=self.root,
            event_ts=self.root,
            event_id=f"Ev{uuid.uuid4().hex[:10]}",
            user=OWNER,
            text=f"<@UBOTLOCAL> {text}",
        )
        assert status == 200

    async def say(self, text: str, user: str = OWNER) -> None:
        self.sent += 1
        ts = f"{float(self.root) + self.sent:.6f}"
        status, _ = await self.slack.event(
            "message_in_thread.json",
            channel=self.channel,
            thread_ts=self.root,
            ts=ts,
            user=user,
            event_id=f"Ev{uuid.uuid4().hex[:10]}",
            text=text,
        )
        assert status == 200

    async def slash(self, text: str, user: str = OWNER) -> str:
        return await command_as(self.slack, self, user, text)

    async def invite(self) -> None:
        for user, role in ((COLLAB, "collaborator"), (WATCHER, "watcher")):
            await self.slash(f"/task invite <@{user}> {role}")

    async def until_posted(self, needle: str, user: str = "") -> str:
        return await until(
            lambda: next((p for p in self.posts(user) if needle in p), ""),
            what=f"a post with {needle!r}",
        )

    async def raw_posts(self) -> list[dict]:
        """Every post in the channel as the stand-in serves them (``GET /_local/posts``)."""
        async with self.slack.session.get(f"{self.slack.base}{POSTS_PATH}") as response:
            posts = await response.json()
        return [p for p in posts if p.get("channel") == self.channel]

    async def click(self, user: str, needle: str, option: str) -> None:
        """``user`` clicks the button ``option`` of the last post with buttons containing
        ``needle``."""
        deadline = time.monotonic() + 20
        while not (
            post := next(
                (
                    p
                    for p in reversed(await self.raw_posts())
                    if buttons(p) and needle in p.get("text", "")
                ),
                None,
            )
        ):
            assert time.monotonic() < deadline, f"no question with {needle!r}"
            await asyncio.sleep(0.05)
        index = next(i for i, b in enumerate(buttons(post), 1) if b.get("value") == option)
        url = f"{self.slack.base}/_local/response/click-{uuid.uuid4().hex}"
        body = click_body(post, index, user=user, team=TEAM, response_url=url)
        headers = self.slack.build_headers(body, "application/x-www-form-urlencoded")
        status, _ = await self.slack.post(body, headers)
        assert status == 200

    @property
    def task_id(self) -> str:
        return self.harness.task_id("T0TEAM1", self.channel)


def another_thread(first: Thread) -> Thread:
    """A second thread of ``first``'s channel: a later mention there joins the same task."""
    second = Thread(first.slack, first.harness)
    second.channel = first.channel
    second.root = f"{float(first.root) + 1000:.6f}"
    return second


def calls_in(thread: Thread) -> list[tuple[str, dict[str, Any]]]:
    """Every Web API call the bot's stand-in took for ``thread``: posts and ephemeral posts
    in it, and edits of a message posted in it."""
    calls = [
        (m, a) for m, a in thread.slack.bot.standin.calls if a.get("channel") == thread.channel
    ]
    mine = {
        str(a.get("ts", ""))
        for _, a in calls
        if a.get("thread_ts") == thread.root or a.get("ts") == thread.root
    }
    return [(m, a) for m, a in calls if a.get("thread_ts") == thread.root or a.get("ts") in mine]


async def posted_in(thread: Thread, check, what: str) -> dict:
    """The first post (as the stand-in serves it now) in ``thread`` that passes ``check``."""

    async def found() -> bool:
        return any(p.get("thread_ts") == thread.root and check(p) for p in await thread.raw_posts())

    await until_async(found, what=what)
    posts = await thread.raw_posts()
    return next(p for p in posts if p.get("thread_ts") == thread.root and check(p))


async def snapshot(slack, thread: Thread):
    return await thread.harness.snapshot(thread.task_id)


async def command_as(slack, thread: Thread, user: str, text: str) -> str:
    """Run a slash command as ``user``; everything they were answered (the ack, then late)."""
    key = uuid.uuid4().hex
    command, _, args = text.partition(" ")
    status, ack = await slack.slash(command, args, user=user, channel=thread.channel, key=key)
    await slack.bot.slash.drain()
    assert status == 200
    return " ".join([ack] + [r.get("text", "") for r in await slack.responses(key)])
