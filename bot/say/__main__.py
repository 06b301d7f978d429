"""``python -m bot.say --user U1 "/model gpt-x"``: talk to the running bot as Slack would.

``--click N`` clicks button N of the last question the bot posted in the channel
(read back from the stand-in), sending the signed ``block_actions`` payload Slack would;
``--click stop`` clicks the Stop button of the turn's progress message. A progress message
is printed once when it appears and again, as it is now, after the answer.

Builds a Slack-format request (a slash command form body, or an ``app_mention``
event for plain text), signs it with the bot's signing secret, posts it and prints
the reply; a late reply is read back from the local stand-in's response URL, and
what the bot posts in answer to a mention is read back from the stand-in too,
messages only one person sees (``chat.postEphemeral``) included.
Works against the bot in local mode (``BOT_LOCAL=1``, what ``make run`` starts); it
signs with ``SLACK_SIGNING_SECRET`` when that is set, else the development secret.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from typing import Any, Final
from urllib.parse import urlsplit

import aiohttp

from bot.config import LOCAL_SIGNING_SECRET, BotSettings
from bot.say.as_slack import mention_body, signed_headers, slash_body
from bot.say.clicks import buttons, click_body, from_task, is_progress, last_question, last_stop
from bot.standin import POSTS_PATH, RESPONSE_PATH, SHOWN_SUFFIX
from harness.programs import program


async def click(args: argparse.Namespace, settings: BotSettings, url: str) -> int:
    """Click option ``args.click`` of the last question in the channel; print what follows."""
    base = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    key = uuid.uuid4().hex
    async with aiohttp.ClientSession() as session:
        before = await _posts(session, base)
        if args.click == "stop":
            return await _click_stop(args, settings, url, session, before)
        question = last_question(before, args.channel, args.thread)
        if not question:
            print(
                f"no open question with buttons in {args.channel} (an answered, timed-out "
                "or stopped one has none left; only the local stand-in keeps them: is the "
                "bot in local mode?)"
            )
            return 1
        options = [str(b.get("value", "")) for b in buttons(question)]
        option = int(args.click) if args.click.isdigit() else 0
        if not 1 <= option <= len(options):
            print(f"--click takes 1 to {len(options)}: {_options(question)}")
            return 1
        body = click_body(
            question,
            option,
            user=args.user,
            team=args.team,
            response_url=base + RESPONSE_PATH + key,
        )
        headers = signed_headers(
            settings.signing_secret or LOCAL_SIGNING_SECRET,
            body,
            "application/x-www-form-urlencoded",
        )
        status, text = await _post(session, url, body, headers)
        if status != 200:
            return _failed(status, text, url)
        print(f"clicked {options[option - 1]!r} on: {question.get('text', '')}")
        async with session.get(base + RESPONSE_PATH + key) as response:
            answers: list[dict[str, Any]] = await response.json()
        if answers:  # the bot answered the click itself (the question is closed, …)
            for answer in answers:
                print(f"only you see: {answer.get('text', '')}")
            return 0
        await _print_posts(
            session,
            base,
            len(before),
            user=args.user,
            patience=10.0,
            nothing="the task posted nothing after the click",
        )
    return 0


async def _click_stop(
    args: argparse.Namespace,
    settings: BotSettings,
    url: str,
    session: aiohttp.ClientSession,
    before: list[dict[str, Any]],
) -> int:
    """Click Stop on the last progress message in the channel; print the answer and what follows."""
    base, key = "{0.scheme}://{0.netloc}".format(urlsplit(url)), uuid.uuid4().hex
    progress = last_stop(before, args.channel, args.thread)
    if not progress:
        print(
            f"no running turn with a Stop button in {args.channel} (a streamed progress "
            "message has none: use `/task stop`)"
        )
        return 1
    body = click_body(
        progress, 1, user=args.user, team=args.team, response_url=base + RESPONSE_PATH + key
    )
    headers = signed_headers(
        settings.signing_secret or LOCAL_SIGNING_SECRET, body, "application/x-www-form-urlencoded"
    )
    status, text = await _post(session, url, body, headers)
    if status != 200:
        return _failed(status, text, url)
    print(f"clicked Stop on: {progress.get('text', '')}")
    deadline = time.monotonic() + settings.reply_deadline_seconds
    while time.monotonic() < deadline:
        async with session.get(base + RESPONSE_PATH + key) as response:
            answers: list[dict[str, Any]] = await response.json()
        if answers:
            for answer in answers:
                public = answer.get("response_type") == "in_channel"
                print(f"{'bot in channel' if public else 'only you see'}: {answer.get('text', '')}")
            break
        await asyncio.sleep(0.1)
    await _print_posts(
        session,
        base,
        len(before),
        user=args.user,
        patience=3.0,
        nothing="(nothing posted after the click yet)",
    )
    return 0


async def say(args: argparse.Namespace, settings: BotSettings) -> int:
    """Send one request and print what comes back; returns a process exit status."""
    url = args.url or f"http://{settings.host}:{settings.port}{settings.path}"
    if args.click:
        return await click(args, settings, url)
    base = "{0.scheme}://{0.netloc}".format(urlsplit(url))
    key = uuid.uuid4().hex
    if args.text.startswith("/"):
        body = slash_body(
            args.text,
            user=args.user,
            team=args.team,
            channel=args.channel,
            response_url=base + RESPONSE_PATH + key,
        )
        content_type = "application/x-www-form-urlencoded"
    else:
        body = mention_body(
            args.text,
            user=args.user,
            team=args.team,
            channel=args.channel,
            bot_user=settings.bot_user_id,
            thread=args.thread,
        )
        content_type = "application/json"
    headers = signed_headers(settings.signing_secret or LOCAL_SIGNING_SECRET, body, content_type)
    async with aiohttp.ClientSession() as session:
        before = await _posts(session, base) if content_type == "application/json" else []
        status, text = await _post(session, url, body, headers)
        if status != 200:
            return _failed(status, text, url)
        if content_type == "application/json":
            # A mention waits past the no-worker notice; a thread reply less (the task
            # queues it behind a running turn, and answers in the thread when it can).
            patience = THREAD_PATIENCE_SECONDS if args.thread else EVENT_PATIENCE_SECONDS
            await _print_posts(
                session,
                base,
                len(before),
                user=args.user,
                patience=patience,
                nothing="accepted; nothing posted in reply yet (the task answers "
                "in its thread when it has an answer)",
            )
            return 0
        print(_reply_text(text))
        if _response_type(text) == "in_channel":
            print("(posted to the channel for everyone)")
        if _reply_text(text).startswith("working on"):
            await _follow(session, base + RESPONSE_PATH + key, settings.reply_deadline_seconds)
    return 0


async def _post(
    session: aiohttp.ClientSession, url: str, body: str, headers: dict[str, str]
) -> tuple[int, str]:
    """POST ``body``; status 0 when nothing listens at ``url``."""
    try:
        async with session.post(url, data=body.encode(), headers=headers) as response:
            return response.status, await response.text()
    except aiohttp.ClientConnectionError:
        return 0, ""


def _failed(status: int, text: str, url: str) -> int:
    """Say why a request failed; the exit status."""
    if status == 0:
        print(f"no bot is listening at {url}; start it with `make run` (or `python -m bot`)")
        return 1
    print(f"HTTP {status}: {text}")
    if status == 401:
        print("(signature rejected: the bot uses another signing secret than this shell)")
    return 1


async def _posts(session: aiohttp.ClientSession, base: str, after: int = 0) -> list[dict[str, Any]]:
    """What the bot posted so far (after its first ``after`` posts); empty when it talks to
    real Slack (no stand-in)."""
    try:
        async with session.get(base + POSTS_PATH, params={"after": after}) as response:
            if response.status != 200:
                return []
            posts: list[dict[str, Any]] = await response.json()
    except (aiohttp.ClientError, ValueError):
        return []
    return posts


async def _print_posts(
    session: aiohttp.ClientSession,
    base: str,
    seen: int,
    *,
    user: str,
    patience: float,
    nothing: str,
) -> None:
    """Print the bot's posts in answer to an event as they come (they follow the ack).

    Stops shortly after the task's own answer (a post carrying the harness's metadata),
    after :data:`QUIET_SECONDS` with nothing new once something was posted ("task
    started" with a slow model), or after ``patience``, which covers the bot's notice that
    no worker answered (``HARNESS_UPDATE_TIMEOUT_SECONDS``, 10 s by default).
    """
    start = time.monotonic()
    last = answered = None
    shown: dict[str, str] = {}  # progress messages printed: ts -> the text printed
    first = seen
    while (now := time.monotonic()) < start + patience:
        posts = await _posts(session, base, seen)
        for post in posts:
            print(_shown(post, user), flush=True)
            last = now
            answered = answered or (from_task(post) and not is_progress(post))
            if is_progress(post):
                shown[str(post.get("ts", ""))] = str(post.get("text", ""))
        seen += len(posts)
        if answered and shown:
            await asyncio.sleep(ANSWERED_QUIET_SECONDS)  # the final rendering follows the answer
            for post in await _posts(session, base, first):
                ts = str(post.get("ts", ""))
                if ts in shown and post.get("text", "") != shown[ts]:
                    print(
                        f"progress in thread {post.get('thread_ts', '-')} now: "
                        f"{post.get('text', '')}",
                        flush=True,
                    )
            return
        if last is not None and now - last >= (
            ANSWERED_QUIET_SECONDS if answered else QUIET_SECONDS
        ):
            return
        await asyncio.sleep(0.1)
    if last is None:
        print(nothing)


QUIET_SECONDS: Final = 3.0
"""How long ``bot.say`` waits for more once the bot posted something other than the answer."""
ANSWERED_QUIET_SECONDS: Final = 0.5
"""How long it waits for more after the task's answer."""
EVENT_PATIENCE_SECONDS: Final = 15.0
"""How long it waits for a first post in answer to a mention: past the no-worker notice."""
THREAD_PATIENCE_SECONDS: Final = 5.0
"""How long it waits for a first post in answer to a reply in a thread."""


def _shown(post: dict[str, Any], user: str) -> str:
    """One post as a line: who sees it, where, and its text."""
    where, said = post.get("thread_ts", "-"), post.get("text", "")
    if is_progress(post):
        stop = f" (stop it: `{program('bot.say')} --click stop`)" if buttons(post) else ""
        return f"progress in thread {where} (updated in place): {said}{stop}"
    if buttons(post):
        said = f"{said} {_options(post)} (answer: `{program('bot.say')} --click N`)"
    if post.get("method") != "chat.postEphemeral":
        return f"bot in thread {where}: {said}"
    who = "only you see" if post.get("user") == user else f"only {post.get('user')} sees"
    return f"{who} (in thread {where}): {said}"


async def _follow(session: aiohttp.ClientSession, url: str, deadline: float) -> None:
    """Print the late reply as the sender sees it (it replaced or deleted "working on …")."""
    stop = time.monotonic() + deadline + 2
    while time.monotonic() < stop:
        async with session.get(url + SHOWN_SUFFIX) as response:
            shown: dict[str, Any] = await response.json()
        if shown["messages"]:
            message = shown["messages"][-1]
            print(message.get("text", ""))
            if message.get("response_type") == "in_channel":
                print("(posted to the channel for everyone)")
            return
        await asyncio.sleep(0.2)
    print("(no follow-up reply arrived)")


def _options(post: dict[str, Any]) -> str:
    """``[1] staging [2] prod``: the buttons as ``--click`` numbers them."""
    return " ".join(f"[{i}] {b.get('value', '')}" for i, b in enumerate(buttons(post), 1))


def _response_type(raw: str) -> str:
    try:
        data = json.loads(raw)
    except ValueError:
        return ""
    return str(data.get("response_type", "")) if isinstance(data, dict) else ""


def _reply_text(raw: str) -> str:
    try:
        data = json.loads(raw)
    except ValueError:
        return raw
    return str(data.get("text", raw)) if isinstance(data, dict) else raw


def main() -> None:
    """Parse the command line and send."""
    parser = argparse.ArgumentParser(prog="python -m bot.say", description=__doc__)
    parser.add_argument(
        "text", nargs="?", default="", help='"/model gpt-x", or plain text to mention the bot with'
    )
    parser.add_argument("--user", default="ULOCAL")
    parser.add_argument("--team", default="TLOCAL")
    parser.add_argument("--channel", default="CLOCAL")
    parser.add_argument("--thread", default="", help="reply in this thread (a ts the bot printed)")
    parser.add_argument("--url", default="", help="the bot's Slack endpoint")
    parser.add_argument(
        "--click",
        default="",
        metavar="N|stop",
        help="click button N (1 = first) of the last question the bot posted "
        "in --channel (in --thread, if given), as Slack sends a click; 'stop' "
        "clicks the Stop button of the turn's progress message",
    )
    args = parser.parse_args()
    if not args.text and not args.click:
        parser.error("say something, or --click N")
    raise SystemExit(asyncio.run(say(args, BotSettings())))


if __name__ == "__main__":
    main()
