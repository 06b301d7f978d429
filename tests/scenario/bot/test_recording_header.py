"""Issue 28: a recording's header says what the file holds, over Socket Mode and in local mode.

Over Socket Mode the bot's user id is the one ``auth.test`` gave (a server whose bot is not
the local default), and the socket's own ``apps.connections.open`` (whose answer carries a
connection ticket) is not recorded. In local mode with the Web API moved off the bot's
stand-in, the worker's posts go elsewhere, and the header does not claim them.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.app import build_app
from bot.recording import load
from bot.socket_mode import socket_mode
from bot.standin import SlackStandIn
from harness.config import Settings
from tests.support.socket_mode_server import SocketModeServer

from .conftest import serve_bot
from .test_click import until
from .test_socket_mode import APP_TOKEN, BOT_TOKEN, bot_settings, event, slash

BOT_USER = "U0SOCKBOT7"


@pytest.fixture
async def server():
    async with SocketModeServer(
        app_token=APP_TOKEN, bot_token=BOT_TOKEN, web_api=SlackStandIn(BOT_USER)
    ) as running:
        yield running


@pytest.fixture
def settings(settings: Settings, server) -> Settings:
    """The worker posts to the server's Web API, with the bot token."""
    return settings.model_copy(
        update={"slack_api_url": server.api_url, "slack_bot_token": SecretStr(BOT_TOKEN)}
    )


async def test_over_socket_mode_the_header_names_the_bot_as_auth_test_did(
    server, harness, worker, tmp_path: Path
):
    path = tmp_path / "socket.jsonl"
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    made = build_app(bot_settings(server, tmp_path, record=path), harness)
    async with socket_mode(made, APP_TOKEN):
        await server.connected()
        mention = event("app_mention.json", channel=channel, text=f"<@{BOT_USER}> hello")
        await server.ack(await server.push("events_api", mention))
        command = await server.push("slash_commands", slash("/effort", "high", channel=channel))
        await server.ack(command)
    await made.slash.drain()
    await made.ledger.aclose()
    assert made.recorder is not None
    made.recorder.close()
    recording = load(path)
    assert recording.header.bot_user_id == BOT_USER  # not the local default, UBOTLOCAL
    assert len(recording.requests) == 2
    methods = [e.method for effects in recording.effects.values() for e in effects]
    assert "apps.connections.open" not in methods
    assert "wss://" not in path.read_text()  # the socket's ticketed URL


async def test_in_local_mode_with_the_web_api_moved_the_header_claims_no_worker_posts(
    harness, worker, slack_api: SlackStandIn, tmp_path: Path
):
    """The bot and the worker both post to the stand-in at ``slack_api.url``, not the bot's."""
    path = tmp_path / "moved.jsonl"
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    async for slack in serve_bot(harness, tmp_path, record=path, api_url=slack_api.url):
        body = slack.event_body("app_mention.json", channel=channel, text="<@UBOTLOCAL> hi")
        status, _ = await slack.post(body, slack.build_headers(body, "application/json"))
        assert status == 200

        def worker_posted() -> bool:
            return any(
                a.get("channel") == channel for m, a in slack_api.calls if m == "chat.postMessage"
            )

        await until(worker_posted, "the worker's post, at the moved Web API")
        await asyncio.sleep(0.3)
    recording = load(path)
    assert recording.header.local
    assert "worker_web_api" not in recording.header.captures
    origins = [getattr(e, "origin", "") for es in recording.effects.values() for e in es]
    assert "worker" not in origins  # and indeed the file has none
