"""A signed request cannot make the bot post to an address of its choosing (issue 9).

The bot runs as in production (HTTP mode: a real signing secret and bot token, no
stand-in); its Web API points at a local recording server (``BOT_API_URL``) so
that bolt's ``auth.test`` is answered. Each request names a local "evil" server as
its ``response_url``; the bot must never post there, neither in the ack-time path
nor in the late reply of a slow task, nor for a click. The development signing
secret, which used to be accepted whenever ``SLACK_SIGNING_SECRET`` was unset, is
refused outright.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from urllib.parse import urlencode

import pytest
from aiohttp import web

from bot.config import LOCAL_SIGNING_SECRET
from bot.say.as_slack import signed_headers
from harness.domain import TaskSpec

from .conftest import FIXTURES, TEAM, serve_bot

OWNER = "U0OWNER"
TOKEN = "xoxb-1111-2222-productionlike"
FORM = "application/x-www-form-urlencoded"


class Recorder:
    """A local HTTP server that answers everything and keeps what it was sent."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        self.requests.append((request.path, await request.text()))
        if request.path.endswith("auth.test"):
            return web.json_response(
                {
                    "ok": True,
                    "user_id": "UBOTPROD",
                    "bot_id": "BPROD",
                    "team_id": TEAM,
                    "url": "https://x.slack.com/",
                }
            )
        return web.json_response({"ok": True, "ts": "1.2"})


@pytest.fixture
async def recorders() -> AsyncIterator[tuple[Recorder, Recorder]]:
    """``(web_api, evil)``: Slack's Web API stand-in for this test, and the attacker's server."""
    runners, found = [], []
    for _ in range(2):
        recorder = Recorder()
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", recorder.handle)
        runner = web.AppRunner(app)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        recorder.url = f"http://127.0.0.1:{port}"
        runners.append(runner)
        found.append(recorder)
    try:
        yield found[0], found[1]
    finally:
        for runner in runners:
            await runner.cleanup()


async def production_bot(harness, tmp_path, web_api: Recorder, **settings):
    async for slack in serve_bot(
        harness, tmp_path, local=False, bot_token=TOKEN, api_url=f"{web_api.url}/api/", **settings
    ):
        yield slack


def slash_body(command: str, text: str, channel: str, response_url: str) -> str:
    return urlencode(
        {
            "team_id": TEAM,
            "channel_id": channel,
            "user_id": OWNER,
            "command": command,
            "text": text,
            "response_url": response_url,
            "trigger_id": f"{uuid.uuid4().hex}.t",
        }
    )


async def test_a_signed_status_cannot_send_the_reply_to_another_host(
    harness, manager, worker, tmp_path, recorders, caplog
):
    web_api, evil = recorders
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )

    async def slow(ctx):
        await asyncio.sleep(0.6)

    async for slack in production_bot(harness, tmp_path, web_api):
        assert slack.bot.standin is None
        body = slash_body("/task", "status", channel, f"{evil.url}/steal")
        status, text = await slack.post(body, slack.build_headers(body, FORM))
        assert status == 200 and "model" in json.loads(text)["text"]  # answered in the ack

        handle = manager.register("command.invoked.pre", slow, priority=200)
        try:
            async for late in production_bot(
                harness, tmp_path / "late", web_api, ack_budget_seconds=0.2
            ):
                body = slash_body("/task", "status", channel, f"{evil.url}/late")
                status, text = await late.post(body, late.build_headers(body, FORM))
                assert (status, json.loads(text)["text"]) == (200, "working on `/task status` …")
                await late.bot.slash.drain()
        finally:
            manager.unregister(handle)
    assert evil.requests == []
    assert [p for p, _ in web_api.requests] == ["/api/auth.test", "/api/auth.test"]
    dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert dropped == 2 * [
        "response_url to host '127.0.0.1' dropped: replies go only to hooks.slack.com"
    ]  # one line per request, host only


async def test_a_signed_click_cannot_send_the_refusal_to_another_host(harness, tmp_path, recorders):
    web_api, evil = recorders
    payload = json.loads((FIXTURES / "block_actions_help.json").read_text())
    payload["response_url"] = f"{evil.url}/click"
    payload["channel"]["id"] = payload["container"]["channel_id"] = "C0NOTASK"
    async for slack in production_bot(harness, tmp_path, web_api):
        body = urlencode({"payload": json.dumps(payload)})
        status, _ = await slack.post(body, slack.build_headers(body, FORM))
        assert status == 200
    assert evil.requests == []


async def test_a_request_signed_with_the_development_secret_is_401(harness, tmp_path, recorders):
    web_api, _ = recorders
    async for slack in production_bot(harness, tmp_path, web_api):
        body = slash_body("/task", "status", "C1", "https://hooks.slack.com/commands/T/1/x")
        status, _ = await slack.post(body, signed_headers(LOCAL_SIGNING_SECRET, body, FORM))
        assert status == 401
        mention = (FIXTURES / "app_mention.json").read_text()
        status, _ = await slack.post(
            mention, signed_headers(LOCAL_SIGNING_SECRET, mention, "application/json")
        )
        assert status == 401
    assert web_api.requests == []


async def test_in_local_mode_only_the_bots_own_stand_in_takes_late_replies(
    harness, manager, worker, tmp_path, recorders
):
    _, evil = recorders
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )

    async def slow(ctx):
        await asyncio.sleep(0.6)

    manager.register("command.invoked.pre", slow, priority=200)
    async for slack in serve_bot(harness, tmp_path, ack_budget_seconds=0.2):
        for url in (f"{evil.url}/_local/response/k", f"{slack.base}/_local/response/own"):
            body = slash_body("/task", "status", channel, url)
            status, _ = await slack.post(body, slack.build_headers(body, FORM))
            assert status == 200
        await slack.bot.slash.drain()
        own = await slack.responses("own")
    assert evil.requests == []
    assert [("model" in m["text"], m["response_type"]) for m in own] == [(True, "ephemeral")]
