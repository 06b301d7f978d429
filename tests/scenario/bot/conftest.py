"""The real bot on 127.0.0.1, signed recorded payloads, and (for most tests) a real worker.

Temporal is the session's dev server and client (:mod:`tests.support.temporal_server`, the
same the integration tier uses) and helper fixtures of ``tests/integration/temporal`` (a task
queue per test); the worker runs the built-in plugin plus the
``commands`` plugin, so every reply and state change below is the real one.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import aiohttp
import pytest
from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from bot.app import Bot, RedactionTable, build_app, build_web_app
from bot.config import STANDIN_PATH, BotSettings
from bot.gateway import Harness
from bot.standin import SlackStandIn, served
from commands import register_all
from harness.config import Settings
from harness.hooks import HookManager
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.worker import build_manager, build_worker, retry_limits
from tests.integration.temporal import conftest as temporal
from tests.support.thread_scan import ThreadScan

# The real-Temporal fixtures of the integration tier, shared rather than copied (the
# session's server and client are the root conftest's plugin's: one per session).
task_queue = temporal.task_queue
settings = temporal.settings
store = temporal.store
harness = temporal.harness

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "slack"
MODELS = ("gpt-x", "claude-y", "offline")
TEAM = "T0TEAM1"


SCAN = ThreadScan()
"""Every stand-in of the session: what each test made Slack show is scanned after it."""


@pytest.fixture(scope="session")
async def slack_api() -> AsyncIterator[SlackStandIn]:
    """The integration tier's shared stand-in (where workers post by default), scanned too."""
    async with served() as standin:
        SCAN.watch(standin)
        yield standin


@pytest.fixture(autouse=True)
def no_internals_in_threads() -> Iterator[ThreadScan]:
    """After each test: nothing Slack showed holds internals, and Slack refused nothing.

    Torn down last, after the test's bot and worker stopped; a post of an earlier test's
    worker that came after that test's end is read here too (it is named, with its channel).
    """
    yield SCAN
    found = SCAN.problems()
    if found:
        pytest.fail("what Slack showed or refused (issue 26):\n" + "\n".join(found))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def manager(settings, store) -> AsyncIterator[HookManager]:
    """The worker's manager with the commands as ``commands.plugin`` registers them: the
    settings' prices and skills directory too, so a test's settings shape the commands."""
    manager = build_manager(settings, store.database)
    register_all(
        manager, models=MODELS, model_prices=settings.model_prices, skills_dir=settings.skills_dir
    )
    yield manager
    await manager.aclose()


@pytest.fixture
async def worker(client, settings, manager):
    activities = HarnessActivities(
        manager, heartbeat_seconds=0.5, retry_limits=retry_limits(settings)
    )
    async with build_worker(client, settings, activities) as running:
        yield running


class Slack:
    """Sends recorded payloads to the bot as Slack does (bolt's test_slash_command shape)."""

    signing_secret = "test-signing-secret"

    def __init__(self, url: str, session: aiohttp.ClientSession, bot: Bot) -> None:
        self.url = url
        self.session = session
        self.bot = bot
        self.base = url.rsplit("/slack/events", 1)[0]

    def build_headers(self, body: str, content_type: str, timestamp: str | None = None) -> dict:
        import time

        ts = timestamp or str(int(time.time()))
        signature = SignatureVerifier(self.signing_secret).generate_signature(
            timestamp=ts, body=body
        )
        return {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": signature,
        }

    async def post(self, body: str | bytes, headers: dict) -> tuple[int, str]:
        """POST to the bot; what it answers itself (a slash command's reply) is scanned too."""
        async with self.session.post(self.url, data=body, headers=headers) as response:
            text = await response.text()
        SCAN.answered(_request_name(body), text)
        return response.status, text

    def slash_body(self, command: str, text: str, *, user: str, channel: str, key: str) -> str:
        fields = dict(parse_qsl((FIXTURES / "slash_command.txt").read_text().strip()))
        fields.update(
            command=command,
            text=text,
            user_id=user,
            channel_id=channel,
            response_url=f"{self.base}/_local/response/{key}",
            trigger_id=f"{key}.{user}.{channel}",
        )
        return urlencode(fields)

    async def slash(
        self, command: str, text: str = "", *, user: str, channel: str, key: str = ""
    ) -> tuple[int, str]:
        """POST a signed slash command; returns status and the ack's text."""
        import uuid

        key = key or uuid.uuid4().hex
        body = self.slash_body(command, text, user=user, channel=channel, key=key)
        status, raw = await self.post(
            body, self.build_headers(body, "application/x-www-form-urlencoded")
        )
        try:
            return status, json.loads(raw)["text"]
        except (ValueError, KeyError, TypeError):
            return status, raw

    def event_body(self, name: str, **event_overrides) -> str:
        payload = json.loads((FIXTURES / name).read_text())
        top = {k: event_overrides.pop(k) for k in list(event_overrides) if k in ("event_id",)}
        payload.update(top)
        payload["event"].update(event_overrides)
        return json.dumps(payload)

    async def event(self, name: str, extra_headers: dict | None = None, **overrides):
        body = self.event_body(name, **overrides)
        headers = self.build_headers(body, "application/json") | (extra_headers or {})
        return await self.post(body, headers)

    async def responses(self, key: str) -> list[dict]:
        async with self.session.get(f"{self.base}/_local/response/{key}") as response:
            return await response.json()


def _request_name(body: str | bytes) -> str:
    """``/task status`` for a slash command's body; what kind of request it is otherwise."""
    raw = body.decode(errors="replace") if isinstance(body, bytes) else body
    fields = dict(parse_qsl(raw)) if not raw.lstrip().startswith("{") else {}
    if "command" in fields:
        return f"{fields['command']} {fields.get('text', '')}".strip()
    return "an interaction" if "payload" in fields else "an event"


@pytest.fixture
def bot_port() -> int:
    """A free port for this test's bot (its workers post to its stand-in: :func:`posting_to`)."""
    return free_port()


def posting_to(settings: Settings, bot_port: int, **changes: object) -> Settings:
    """The shared settings, on the offline model, the worker posting to the bot's stand-in."""
    return settings.model_copy(
        update={
            "models": ["offline"],
            "slack_api_url": f"http://127.0.0.1:{bot_port}{STANDIN_PATH}",
            **changes,
        }
    )


async def serve_bot(
    harness: Harness, tmp_path: Path, redaction: RedactionTable | None = None, **settings
) -> AsyncIterator[Slack]:
    """The real bot on a free loopback port; local mode (stand-in) unless ``local=False``;
    ``redaction``: the hooks file's table, as ``python -m bot`` passes it."""
    port = settings.pop("port", None) or free_port()
    settings = {"local": True, "signing_secret": Slack.signing_secret, "bot_token": ""} | settings
    bot_settings = BotSettings(_env_file=None, port=port, data_dir=tmp_path, **settings)
    bot = build_app(bot_settings, harness, redaction=redaction)
    if bot.standin is not None:
        SCAN.watch(bot.standin)
    runner = web.AppRunner(build_web_app(bot_settings, bot))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        async with aiohttp.ClientSession() as session:
            yield Slack(f"http://127.0.0.1:{port}/slack/events", session, bot)
    finally:
        await runner.cleanup()


@pytest.fixture
async def slack(harness, worker, tmp_path) -> AsyncIterator[Slack]:
    """The bot in front of a real worker."""
    async for sender in serve_bot(harness, tmp_path):
        yield sender
