"""A remote hook executor for the scenario tests that keeps what it is sent (issue 26).

Served on a loopback port with the harness's own JSON-RPC server, so a hooks file can
name it; every request body is kept as it arrived, before any parsing.
"""

from __future__ import annotations

import json

from aiohttp import web

from harness.hook_server import jsonrpc_app

from .loopback import LoopbackService


class Recorder(LoopbackService):
    """``recorder``: a JSON-RPC executor at ``points`` that passes everything and keeps each
    request's body as it arrived."""

    def __init__(self, points: tuple[str, ...]) -> None:
        super().__init__()
        self.points = points
        self.bodies: list[bytes] = []

    @web.middleware
    async def keep(self, request: web.Request, handler):
        self.bodies.append(await request.read())
        return await handler(request)

    async def passes(self, ctx) -> None:
        return None

    def methods(self) -> set[str]:
        return {json.loads(body)["method"] for body in self.bodies}

    def arguments(self) -> list[dict]:
        """The arguments of every tool call the executor was asked about."""
        found = []
        for body in self.bodies:
            params = json.loads(body)["params"]
            call = params.get("context", params).get("call")
            if call:
                found.append(call["arguments"])
        return found

    def app(self) -> web.Application:
        app = jsonrpc_app(dict.fromkeys(self.points, self.passes), path="/rpc")
        app.middlewares.append(self.keep)
        return app
