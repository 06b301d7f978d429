"""A local stand-in for Slack's Web API and response URLs, for running without credentials.

It answers every Web API method with ``ok`` (``auth.test`` with the configured bot
user), prints what would have been posted and keeps it, so ``python -m bot.say`` and
tests can read it back. It is a development seam shipped in the package (like
httpx's ``MockTransport``), never used when a real bot token is configured.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from typing import Any, Final, final

from aiohttp import web

log = logging.getLogger(__name__)

RESPONSE_PATH: Final = "/_local/response/"
POSTS_PATH: Final = "/_local/posts"
"""``GET``: every ``chat.postMessage`` so far, oldest first (what ``bot.say`` prints)."""


@final
class SlackStandIn:
    """Records Web API calls and response-URL posts.

    Args:
        bot_user_id: what ``auth.test`` answers.
    """

    def __init__(self, bot_user_id: str) -> None:
        self.bot_user_id = bot_user_id
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.responses: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)

    def routes(self, api_path: str) -> list[web.RouteDef]:
        """aiohttp routes for the Web API under ``api_path`` and the response URLs."""
        return [
            web.post(api_path + "{method}", self.api),
            web.post(RESPONSE_PATH + "{key}", self.respond),
            web.get(RESPONSE_PATH + "{key}", self.read_responses),
            web.get(POSTS_PATH, self.read_posts),
        ]

    async def api(self, request: web.Request) -> web.Response:
        """One Web API call: record, print, answer ``ok``."""
        method = request.match_info["method"]
        args = await _arguments(request)
        self.calls.append((method, args))
        if method == "auth.test":
            return web.json_response({"ok": True, "user_id": self.bot_user_id, "bot_id": "BLOCAL",
                                      "team_id": "TLOCAL", "url": "http://localhost/"})  # fmt: skip
        print(f"[slack stand-in] {method}: {json.dumps(args, ensure_ascii=False)}", flush=True)
        ts = f"{1700000000 + len(self.calls)}.000100"
        return web.json_response({"ok": True, "channel": args.get("channel", ""), "ts": ts})

    async def respond(self, request: web.Request) -> web.Response:
        """A post to a response URL (the late reply of a slash command)."""
        payload = await _arguments(request)
        self.responses[request.match_info["key"]].append(payload)
        print(f"[slack stand-in] response: {payload.get('text', '')}", flush=True)
        return web.Response(text="ok")

    async def read_posts(self, request: web.Request) -> web.Response:
        """Every message the bot posted so far (for ``bot.say``)."""
        posts = [args for method, args in self.calls if method == "chat.postMessage"]
        return web.json_response(posts)

    async def read_responses(self, request: web.Request) -> web.Response:
        """What was posted to one response URL so far (for ``bot.say``)."""
        return web.json_response(self.responses.get(request.match_info["key"], []))


async def _arguments(request: web.Request) -> dict[str, Any]:
    if request.content_type == "application/json":
        try:
            data = await request.json()
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}
    return dict(await request.post())
