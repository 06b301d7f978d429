"""A local server speaking Slack's Socket Mode protocol, with the Web API stand-in beside it.

Slack's side of Socket Mode as slack_sdk's aiohttp client meets it: the Web API
method ``apps.connections.open`` (the app-level token as a bearer header; the
answer is a one-time websocket URL, or Slack's ``not_authed``, ``invalid_auth`` or
``not_allowed_token_type``), the websocket that says ``hello`` on connect, takes
envelopes (``events_api``, ``slash_commands``, ``interactive``) and their acks
(``{"envelope_id": ..., "payload": ...}``), and ``disconnect`` that makes the client
open a new connection. Every other Web API method at the same base URL is the bot's
stand-in (:class:`bot.standin.SlackStandIn`) behind the same token check, so the bot
and the worker, pointed at :attr:`SocketModeServer.api_url`, reach one Slack.
Frames and answers are recorded shapes from ``tests/fixtures/slack/socket_mode``;
the payloads inside envelopes are the tests' own (``tests/fixtures/slack``).
"""

from __future__ import annotations

import asyncio
import copy
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from aiohttp import WSMsgType, web

from bot.standin import SlackStandIn

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "slack" / "socket_mode"
API_PATH = "/api/"
LINK_PATH = "/link/"
Kind = Literal["events_api", "slash_commands", "interactive"]


def _fixture(name: str) -> Any:  # any JSON
    return json.loads((FIXTURES / name).read_text())


@dataclass
class Connection:
    """One websocket the client opened with a ticket: what was sent on it and what came back."""

    ticket: str
    ws: web.WebSocketResponse
    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    closed: bool = False


@dataclass(frozen=True)
class OpenCall:
    """One ``apps.connections.open`` call: the token it carried and the error answered, if any."""

    token: str
    error: str | None


class SocketModeServer:
    """aiohttp on 127.0.0.1 with an ephemeral port; use ``async with``.

    Args:
        app_token: the app-level token (``xapp-…``) ``apps.connections.open`` accepts.
        bot_token: the token every other Web API method accepts.
        web_api: the stand-in that answers the other methods and records them.
    """

    def __init__(self, *, app_token: str, bot_token: str, web_api: SlackStandIn) -> None:
        self.app_token = app_token
        self.bot_token = bot_token
        self.web_api = web_api
        self.opened: list[OpenCall] = []
        self.connections: list[Connection] = []
        self.acks: dict[str, list[dict[str, Any]]] = {}
        """Every ack by envelope id, in arrival order (two acks of one envelope are a bug)."""
        self._tickets: set[str] = set()
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The Web API base URL, for ``BOT_API_URL`` and ``HARNESS_SLACK_API_URL``."""
        return self.url + API_PATH

    async def __aenter__(self) -> SocketModeServer:
        app = web.Application()
        # The exact method first: aiohttp matches routes in the order they were added.
        app.router.add_post(API_PATH + "apps.connections.open", self._open)
        app.router.add_post(API_PATH + "{method}", self._web_api)
        app.router.add_get(LINK_PATH, self._link)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for connection in self.connections:
            if not connection.closed:
                await connection.ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    # --- what tests do

    async def connected(self, count: int = 1, timeout: float = 10.0) -> Connection:
        """Wait until ``count`` connections were opened and greeted; the newest one."""
        await self._until(
            lambda: sum(bool(c.sent) for c in self.connections) >= count,
            timeout,
            f"{count} Socket Mode connection(s)",
        )
        return self.connections[count - 1]

    @property
    def current(self) -> Connection:
        """The newest open connection: where Slack sends the next envelope."""
        open_ = [c for c in self.connections if not c.closed and c.sent]
        assert open_, "no open Socket Mode connection"
        return open_[-1]

    async def push(
        self,
        kind: Kind,
        payload: dict[str, Any],
        *,
        retry_attempt: int = 0,
        retry_reason: str = "",
        on: Connection | None = None,
    ) -> str:
        """Send one envelope of ``kind`` carrying ``payload`` on the newest connection (or ``on``).

        Returns:
            its ``envelope_id`` (fresh each time, as Slack's are).
        """
        envelope = copy.deepcopy(_fixture("envelopes.json")[kind])
        envelope.update(envelope_id=str(uuid.uuid4()), payload=payload)
        if kind == "events_api":
            envelope.update(retry_attempt=retry_attempt, retry_reason=retry_reason)
        await self._send(on or self.current, envelope)
        return str(envelope["envelope_id"])

    async def ack(self, envelope_id: str, timeout: float = 10.0) -> dict[str, Any] | None:
        """Wait for the ack of ``envelope_id``; its ``payload`` (``None`` for a bare ack)."""
        await self._until(lambda: envelope_id in self.acks, timeout, f"ack of {envelope_id}")
        payload: dict[str, Any] | None = self.acks[envelope_id][0].get("payload")
        return payload

    async def disconnect(self, reason: str = "refresh_requested") -> Connection:
        """Ask the client to reconnect, as Slack does before it recycles a connection."""
        frame = _fixture("disconnect.json")
        frame["reason"] = reason
        connection = self.current
        await self._send(connection, frame)
        return connection

    # --- the protocol

    async def _open(self, request: web.Request) -> web.Response:
        """``apps.connections.open``: a one-time websocket URL for an app-level token."""
        answers = _fixture("apps.connections.open.json")
        token = _bearer(request)
        error = None
        if not token:
            error = "not_authed"
        elif token == self.bot_token:
            error = "not_allowed_token_type"
        elif token != self.app_token:
            error = "invalid_auth"
        self.opened.append(OpenCall(token=token, error=error))
        if error is not None:
            return web.json_response(answers[error])
        ticket = str(uuid.uuid4())
        self._tickets.add(ticket)
        answer = answers["ok"]
        answer["url"] = f"ws://127.0.0.1:{self.port}{LINK_PATH}?ticket={ticket}&app_id=A0APP1"
        return web.json_response(answer)

    async def _web_api(self, request: web.Request) -> web.Response:
        """Any other method: the bot token only, then the stand-in answers and records it."""
        token = _bearer(request)
        if not token:
            return web.json_response({"ok": False, "error": "not_authed"})
        if token == self.app_token:
            return web.json_response({"ok": False, "error": "not_allowed_token_type"})
        if token != self.bot_token:
            return web.json_response({"ok": False, "error": "invalid_auth"})
        return await self.web_api.api(request)

    async def _link(self, request: web.Request) -> web.StreamResponse:
        """The websocket: a ticket is good for one connection, as Slack's are."""
        ticket = request.query.get("ticket", "")
        if ticket not in self._tickets:
            return web.Response(status=401, text="invalid or used ticket")
        self._tickets.discard(ticket)
        ws = web.WebSocketResponse(autoping=True)  # answers the SDK's pings with its data
        await ws.prepare(request)
        connection = Connection(ticket=ticket, ws=ws)
        self.connections.append(connection)
        hello = _fixture("hello.json")
        hello["num_connections"] = sum(not c.closed for c in self.connections)
        await self._send(connection, hello)
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self._received(connection, json.loads(message.data))
        finally:
            async with self._changed:
                connection.closed = True
                self._changed.notify_all()
        return ws

    async def _received(self, connection: Connection, frame: dict[str, Any]) -> None:
        async with self._changed:
            connection.received.append(frame)
            if "envelope_id" in frame:
                self.acks.setdefault(str(frame["envelope_id"]), []).append(frame)
            self._changed.notify_all()

    async def _send(self, connection: Connection, frame: dict[str, Any]) -> None:
        await connection.ws.send_str(json.dumps(frame))
        async with self._changed:
            connection.sent.append(frame)
            self._changed.notify_all()

    async def _until(self, check: Callable[[], bool], timeout: float, what: str) -> None:
        try:
            async with asyncio.timeout(timeout), self._changed:
                await self._changed.wait_for(check)
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what}") from None


def _bearer(request: web.Request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
