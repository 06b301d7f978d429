"""A local stand-in for Slack's Web API and response URLs, for running without credentials.

It answers every Web API method with ``ok`` (``auth.test`` with the configured bot
user) unless Slack would refuse the call (a message over Slack's limits:
:mod:`bot.standin.limits`, kept in :attr:`SlackStandIn.refused`), prints what would have
been posted and keeps it (a message changed in place by
``chat.update``, a stream or a reaction as Slack changes it: :mod:`bot.standin.live`), so
``python -m bot.say`` and tests can read it back; posts to a response URL are also
applied as Slack applies them (``replace_original``, ``delete_original``:
:mod:`bot.standin.responses`), so a test can ask what the sender would see, not only what was
sent. Given a :class:`~bot.standin.store.PostStore` (local mode's, under the data directory)
its posts outlive a restart of the bot. It is a development seam shipped in the package (like
httpx's ``MockTransport``), never used when a real bot token is configured.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final, final

from aiohttp import web

from bot.config import RESPONSE_PATH, STANDIN_PATH
from bot.recording import Recorder
from bot.recording.recorder import RECORDED_HEADER
from bot.standin.limits import blocks_refusal, refusal
from bot.standin.live import LIVE_METHODS, LiveMessages
from bot.standin.responses import ResponseView, flag
from bot.standin.store import Kept, PostStore

log = logging.getLogger(__name__)

SHOWN_SUFFIX: Final = "/shown"
"""``GET RESPONSE_PATH + key + SHOWN_SUFFIX``: :meth:`ResponseView.as_json` of that URL."""
POSTS_PATH: Final = "/_local/posts"
"""``GET``: every ``chat.postMessage``, ``chat.postEphemeral`` and ``chat.startStream`` so far,
oldest first, each its arguments plus ``method`` and the ``ts`` it got, with the message's
text, blocks and chunks as they are now (what ``bot.say`` prints and clicks). ``?after=N``:
only the posts after the first ``N`` (``[]`` when there are no more), so a poller that counts
what it read asks for what is new alone; ``N`` not a count (0 or more): HTTP 400."""
RECORDING_PATH: Final = "/_local/recording"
"""``GET ?from=BYTE``: with ``BOT_RECORD``, ``{"lines": [...], "next": BYTE}``: the recording's
lines from that byte offset on, as JSON objects, and where the next read starts."""
POST_METHODS: Final = ("chat.postMessage", "chat.postEphemeral", "chat.startStream")
READ_METHODS: Final = ("conversations.history", "conversations.replies")
SAVE_DELAY_SECONDS: Final = 0.25
"""How long the stand-in gathers changes before it writes them to its posts' file."""

_IN_PLACE: Final = ("chat.update", "chat.appendStream", "chat.stopStream")
_CHANGES: Final = (*POST_METHODS, *_IN_PLACE)
"""The calls after which a store is written (what a restarted stand-in must show)."""


@final
class SlackStandIn:
    """Records Web API calls and response-URL posts.

    Args:
        bot_user_id: what ``auth.test`` answers.
        streaming: offer Slack's streaming methods (``False``: refuse them as a workspace
            without them does).
        recorder: ``BOT_RECORD``'s: records the calls of the worker (the bot's own client
            records its calls itself, marked so they are not recorded twice), and serves
            the recording so far at :data:`RECORDING_PATH`.
        store: where its posts are kept across restarts (read now; the changes of each burst
            appended a moment after it, and everything written whole by :meth:`flush`).
    """

    def __init__(
        self,
        bot_user_id: str,
        *,
        streaming: bool = True,
        recorder: Recorder | None = None,
        store: PostStore | None = None,
    ) -> None:
        self.bot_user_id = bot_user_id
        self.recorder = recorder
        self.calls: list[tuple[str, dict[str, Any]]] = []
        """Every call Slack took, in order."""
        self.refused: list[tuple[str, dict[str, Any], str]] = []
        """``(method, arguments, Slack's error)`` of each call refused as Slack refuses it
        (:mod:`bot.standin.limits`; ``response`` for a response URL): never in :attr:`calls`."""
        self.responses: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        self.shown: defaultdict[str, ResponseView] = defaultdict(ResponseView)
        self.messages: list[dict[str, Any]] = []
        """What ``chat.postMessage`` left in channels, as ``conversations.*`` read it back."""
        self._last_ts = 0.0
        self._ts_of_call: dict[int, str] = {}
        self._posts: list[int] = []
        """The indexes in :attr:`calls` of its posts (:data:`POST_METHODS`), of the first
        :attr:`_scanned` calls."""
        self._scanned = 0
        self.url = ""
        """Its Web API base URL when :func:`served` serves it alone."""
        self.live = LiveMessages(self.messages, self._next_ts, streaming=streaming)
        self._store = store
        self._dirty = False
        self._pending: asyncio.TimerHandle | None = None
        self._saved = (0, 0)
        """How many posts and messages the store has (the first of each), and"""
        self._edited: dict[int, dict[str, Any]] = {}
        """the messages changed in place since it had them (``id`` -> the message)."""
        if store is not None:
            self._restore(store.load())
            self._all_saved()

    def routes(self, api_path: str) -> list[web.RouteDef]:
        """aiohttp routes for the Web API under ``api_path`` and the response URLs."""
        return [
            web.post(api_path + "{method}", self.api),
            web.post(RESPONSE_PATH + "{key}", self.respond),
            web.get(RESPONSE_PATH + "{key}", self.read_responses),
            web.get(RESPONSE_PATH + "{key}" + SHOWN_SUFFIX, self.read_shown),
            web.get(POSTS_PATH, self.read_posts),
            web.get(RECORDING_PATH, self.read_recording),
        ]

    async def api(self, request: web.Request) -> web.Response:
        """One Web API call: keep it, answer as Slack would; recorded with ``BOT_RECORD``."""
        method = request.match_info["method"]
        args = await _arguments(request)
        response = self._answer(method, args)
        if self.recorder is not None and RECORDED_HEADER not in request.headers:
            self.recorder.web_api(method, args, response, "worker")
        return web.json_response(response)

    def _answer(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """Keep one call, print it, and answer as Slack would (saved when it changed a post)."""
        refused = refusal(method, args)
        if refused is not None:
            self.refused.append((method, args, str(refused["error"])))
            print(f"[slack stand-in] {method} refused: {json.dumps(refused)}", flush=True)
            return refused
        answer = self._answer_one(method, args)
        if self._store is not None and method in _CHANGES and answer.get("ok"):
            if method in _IN_PLACE:
                edited = self.live.find(answer.get("channel"), answer.get("ts"))
                if edited is not None:
                    self._edited[id(edited)] = edited
            self._changed()
        return answer

    def _changed(self) -> None:
        """Save soon, once for a burst of changes.

        A turn's progress is updated several times a second: saving on each change held the
        bot's loop (``bench/load.py``'s p50 went up by half). Outside a running loop (a unit
        test) it saves at once.
        """
        self._dirty = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._pending is None:
            self._pending = loop.call_later(SAVE_DELAY_SECONDS, self._append)

    def _append(self) -> None:
        """Append the burst's changes to the store (:meth:`PostStore.append`)."""
        self._pending = None
        if self._store is not None and self._dirty:
            self._dirty = False
            self._store.append(self._changes(), self._whole)

    def flush(self) -> None:
        """Write the posts whole now if anything changed since the store last wrote them
        whole (the bot calls this as it stops, so a restart loses nothing and finds one
        JSON object)."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._store is not None and (self._dirty or self._store.appended):
            self._dirty = False
            self._store.save(self._whole())
            self._all_saved()

    def _restore(self, kept: Kept) -> None:
        """Take back the posts and messages a store kept (before anything is posted)."""
        for post in kept.posts:
            method, args = post.get("method"), post.get("args")
            if method in POST_METHODS and isinstance(args, dict):
                self.calls.append((str(method), args))
                self._ts_of_call[len(self.calls) - 1] = str(post.get("ts") or "")
        self.messages.extend(kept.messages)  # before any post: LiveMessages indexes them now
        for message in self.messages:
            try:
                self._last_ts = max(self._last_ts, float(message.get("ts") or 0))
            except (TypeError, ValueError):
                continue

    def _post_calls(self) -> list[int]:
        """:attr:`_posts`, the calls since the last look-up scanned."""
        for i in range(self._scanned, len(self.calls)):
            if self.calls[i][0] in POST_METHODS:
                self._posts.append(i)
        self._scanned = len(self.calls)
        return self._posts

    def _kept_post(self, i: int) -> dict[str, Any]:
        method, args = self.calls[i]
        return {"method": method, "args": args, "ts": self._ts_of_call.get(i, "")}

    def _whole(self) -> Kept:
        """What the store keeps of everything: the last posts and messages."""
        kept = self._store.kept if self._store is not None else len(self.calls)
        posts = [self._kept_post(i) for i in self._post_calls()[-kept:]]
        return Kept(posts=posts, messages=self.messages[-kept:])

    def _changes(self) -> Kept:
        """The posts and messages the store does not have as they are now; from here on it
        has them."""
        posts, messages = self._saved
        new = self.messages[messages:]
        fresh = {id(m) for m in new}
        edited = [m for m in self._edited.values() if id(m) not in fresh]
        changes = Kept(
            posts=[self._kept_post(i) for i in self._post_calls()[posts:]],
            messages=edited + new,
        )
        self._all_saved()
        return changes

    def _all_saved(self) -> None:
        self._saved, self._edited = (len(self._post_calls()), len(self.messages)), {}

    def _answer_one(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        self.calls.append((method, args))
        if method == "auth.test":
            return {
                "ok": True,
                "user_id": self.bot_user_id,
                "bot_id": "BLOCAL",
                "team_id": "TLOCAL",
                "url": "http://localhost/",
            }
        if method in READ_METHODS:
            return {"ok": True, "messages": self._read(method, args), "has_more": False}
        if method in LIVE_METHODS:
            answer = self.live.answer(method, args)
            if answer.get("ts"):
                self._ts_of_call[len(self.calls) - 1] = str(answer["ts"])
            return answer
        print(f"[slack stand-in] {method}: {json.dumps(args, ensure_ascii=False)}", flush=True)
        ts = self._next_ts()
        self._ts_of_call[len(self.calls) - 1] = ts
        if method == "chat.postMessage":
            self.messages.append({"type": "message", "bot_id": "BLOCAL", "ts": ts, **args})
        return {"ok": True, "channel": args.get("channel", ""), "ts": ts}

    def _next_ts(self) -> str:
        """A Slack-like ``ts``: the time now, and later than every earlier one."""
        self._last_ts = max(time.time(), self._last_ts + 0.000001)
        return f"{self._last_ts:.6f}"

    def _read(self, method: str, args: dict[str, Any]) -> list[dict[str, Any]]:
        """``conversations.history`` or ``.replies`` over the posts, as Slack answers them."""
        oldest = float(args.get("oldest") or 0)
        with_metadata = flag(args.get("include_all_metadata"))
        found = []
        for message in self.messages:
            if message.get("channel") != args.get("channel") or float(message["ts"]) < oldest:
                continue
            thread = message.get("thread_ts") or message["ts"]
            if method == "conversations.replies" and thread != args.get("ts"):
                continue
            if method == "conversations.history" and message.get("thread_ts"):
                continue  # history holds a channel's top-level messages only
            shown = {k: v for k, v in message.items() if k not in ("channel", "metadata")}
            if with_metadata and "metadata" in message:
                shown["metadata"] = message["metadata"]
            found.append(shown)
        return found

    async def respond(self, request: web.Request) -> web.Response:
        """A post to a response URL (the late reply of a slash command)."""
        payload = await _arguments(request)
        key = request.match_info["key"]
        refused = blocks_refusal(payload.get("blocks"))
        if refused is not None:
            self.refused.append(("response", payload, str(refused["error"])))
            print(f"[slack stand-in] response refused: {json.dumps(refused)}", flush=True)
            return web.Response(status=400, text=str(refused["error"]))
        self.responses[key].append(payload)
        self.shown[key].apply(payload)
        shown = "(deletes the original)" if flag(payload.get("delete_original")) else ""
        print(f"[slack stand-in] response: {payload.get('text') or shown}", flush=True)
        return web.Response(text="ok")

    async def read_posts(self, request: web.Request) -> web.Response:
        """The messages the bot posted so far, public or ephemeral (for ``bot.say``), all or
        those after the first ``?after=N`` (:data:`POSTS_PATH`)."""
        after = request.query.get("after", "0")
        if not (after.isascii() and after.isdigit()):
            return web.json_response(
                {"error": "after takes a number of posts (0 or more)"}, status=400
            )
        posts = []
        for i in self._post_calls()[int(after) :]:
            method, args = self.calls[i]
            post = {**args, "method": method, "ts": self._ts_of_call.get(i, "")}
            now = self.live.find(args.get("channel"), post["ts"]) or {}
            post.update(
                {k: now[k] for k in ("text", "blocks", "chunks", "edits", "streaming") if k in now}
            )
            posts.append(post)
        return web.json_response(posts)

    async def read_recording(self, request: web.Request) -> web.Response:
        """``?from=BYTE``: the recording's lines from there on, parsed (for ``bot.replay``)."""
        if self.recorder is None:
            return web.json_response(
                {"error": "not recording: start the bot with BOT_RECORD=FILE"}, status=404
            )
        try:
            start = int(request.query.get("from", "0"))
        except ValueError:
            start = -1
        if start < 0:
            return web.json_response({"error": "from takes a byte offset (0 or more)"}, status=400)
        lines, following = self.recorder.read_from(start)
        return web.json_response(
            {"lines": [json.loads(line) for line in lines if line.strip()], "next": following}
        )

    async def read_responses(self, request: web.Request) -> web.Response:
        """What was posted to one response URL so far (for ``bot.say``)."""
        return web.json_response(self.responses.get(request.match_info["key"], []))

    async def read_shown(self, request: web.Request) -> web.Response:
        """What the sender sees from one response URL now (:class:`ResponseView`)."""
        view = self.shown.get(request.match_info["key"], ResponseView())
        return web.json_response(view.as_json())


async def _arguments(request: web.Request) -> dict[str, Any]:
    if request.content_type == "application/json":
        try:
            data = await request.json()
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    return dict(await request.post())


@asynccontextmanager
async def served(
    bot_user_id: str = "UBOTLOCAL",
    *,
    streaming: bool = True,
) -> AsyncIterator[SlackStandIn]:
    """A stand-in served alone on a free loopback port, ``url`` set: for a worker (a test, a
    bench) that posts to Slack with no bot in front of it."""
    standin = SlackStandIn(bot_user_id, streaming=streaming)
    app = web.Application()
    app.router.add_routes(standin.routes(STANDIN_PATH))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    standin.url = f"http://127.0.0.1:{port}{STANDIN_PATH}"
    try:
        yield standin
    finally:
        await runner.cleanup()
