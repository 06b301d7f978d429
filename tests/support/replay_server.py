"""A local HTTP server that replays recorded model-API responses and records every request.

Stands in for the OpenAI-compatible and Anthropic APIs (DESIGN.md: "tested against a
local HTTP server that replays recorded responses"). Tests queue the recordings the
next calls get, in order, from ``tests/fixtures/llm/<vendor>/<name>.json``::

    {"status": 200, "body": {...}}            # JSON reply
    {"status": 502, "body_text": "<html>…"}   # raw reply (HTML errors, malformed bodies)
    {"delay_seconds": 5, ...}                 # answer late (timeouts)

and assert on :attr:`ReplayServer.requests` what the provider sent. A call with
nothing queued, or to another API than the recording's, gets a 599 that fails the
test loudly instead of replaying the wrong thing.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "llm"
ROUTES = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class ReplayServer:
    """aiohttp on 127.0.0.1 with an ephemeral port; use ``async with``."""

    def __init__(self, fixtures: Path = FIXTURES) -> None:
        self.fixtures = fixtures
        self.requests: list[RecordedRequest] = []
        self._queue: list[tuple[str, dict[str, Any]]] = []
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    def queue(self, *names: str) -> None:
        """Queue recordings by ``"<vendor>/<name>"`` (``.json`` optional), replayed in order."""
        for name in names:
            vendor = name.split("/", 1)[0]
            path = self.fixtures / (name if name.endswith(".json") else name + ".json")
            self._queue.append((ROUTES[vendor], json.loads(path.read_text())))

    @property
    def pending(self) -> int:
        """Recordings queued and not yet served."""
        return len(self._queue)

    async def __aenter__(self) -> ReplayServer:
        app = web.Application()
        for route in ROUTES.values():
            app.router.add_post(route, self._serve)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.requests.append(RecordedRequest(request.path, headers, body))
        if not self._queue:
            return _fail(f"replay server: nothing queued for {request.path}")
        route, recording = self._queue.pop(0)
        if route != request.path:
            return _fail(f"replay server: next recording is for {route}, got {request.path}")
        if delay := recording.get("delay_seconds"):
            await asyncio.sleep(delay)
        status = recording.get("status", 200)
        if "body_text" in recording:
            return web.Response(status=status, text=recording["body_text"])
        return web.json_response(recording.get("body", {}), status=status)


def _fail(message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": "replay_error"}}, status=599)
