"""``BOT_RECORD``: what the real bot records, and that no secret of the session reaches the file.

Real bot (local mode, signature checks on), real worker on the dev server. The session's
secrets are planted everywhere Slack traffic can carry them: the signing secret and a bot
token typed into a command and a message, Slack's legacy verification token in each body,
the response URL (a capability), the worker's payload key; the canary test reads the file
byte by byte for each, and checks that the ordinary words of the session are there, so an
empty file could not pass.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest

from bot.recording import load
from bot.recording.scrub import RESPONSE_URL_PLACEHOLDER
from harness.config import Settings

from .conftest import Slack, posting_to, serve_bot
from .test_click import until

OWNER = "U0OWNER1"
CANARY_TOKEN = "xoxb-1111111111-2222222222-canaryCANARYcanary"
VERIFICATION = "verificationTokenCanary42"


@pytest.fixture
def settings(settings: Settings, bot_port: int) -> Settings:
    """The worker posts to this test's bot, whose stand-in records its calls."""
    return posting_to(settings, bot_port)


def _answered(calls: list) -> object:
    return lambda: any("remember" in json.dumps(a) for m, a in calls if m == "chat.postMessage")


async def test_no_secret_of_the_recorded_session_reaches_the_file(
    harness, worker, settings, bot_port, tmp_path: Path
):
    path = tmp_path / "session.jsonl"
    channel = f"C0{uuid.uuid4().hex[:8].upper()}"
    payload_key = settings.secret_values()  # the worker's secrets, as python -m bot passes them
    async for slack in serve_bot(harness, tmp_path, record=path, port=bot_port):
        assert slack.bot.recorder is not None
        for secret in payload_key:
            slack.bot.recorder.scrubber.add_secret(secret)
        status, reply = await slack.slash(
            "/model", f"{Slack.signing_secret} {CANARY_TOKEN}", user=OWNER, channel=channel
        )
        assert status == 200 and CANARY_TOKEN not in reply
        body = slack.event_body(
            "app_mention.json",
            channel=channel,
            user=OWNER,
            text=f"<@UBOTLOCAL> remember {CANARY_TOKEN} please",
        )
        body = body.replace('"token": "', f'"token": "{VERIFICATION}')
        status, _ = await slack.post(body, slack.build_headers(body, "application/json"))
        assert status == 200
        await until(_answered(slack.bot.standin.calls), "the agent's answer")
        await asyncio.sleep(0.5)  # the progress message's last update
    raw = path.read_bytes()
    for secret in (
        Slack.signing_secret,
        CANARY_TOKEN,
        VERIFICATION,
        *payload_key,
        "/_local/response/",
    ):
        assert secret.encode() not in raw, f"{secret[:12]}… is in the recording"
    recording = load(path)
    assert [r.transport for r in recording.requests] == ["http", "http"]
    assert "remember" in raw.decode() and "/model" in raw.decode()  # the session is there
    slash = recording.requests[0].payload()
    assert slash["response_url"] == RESPONSE_URL_PLACEHOLDER and slash["token"] == "[REDACTED]"
    worker = [
        e
        for e in recording.effects[recording.requests[1].id]
        if e.type == "web_api" and e.origin == "worker"
    ]
    assert any("remember [REDACTED] please" in json.dumps(e.args) for e in worker), worker


async def test_ids_are_pseudonymised_consistently_when_asked(harness, worker, tmp_path: Path):
    path = tmp_path / "shared.jsonl"
    channel = f"C0{uuid.uuid4().hex[:8].upper()}"
    async for slack in serve_bot(harness, tmp_path, record=path, record_pseudonymise=True):
        for text in ("", "high"):
            status, _ = await slack.slash("/effort", text, user=OWNER, channel=channel)
            assert status == 200
    raw = path.read_text()
    assert OWNER not in raw and channel not in raw
    first, second = (r.payload() for r in load(path).requests)
    assert first["user_id"] == second["user_id"] != OWNER
    assert first["channel_id"] == second["channel_id"] != channel
    assert load(path).header.pseudonymised


async def test_a_forged_request_is_not_recorded(harness, tmp_path: Path):
    path = tmp_path / "forged.jsonl"
    async for slack in serve_bot(harness, tmp_path, record=path):
        body = slack.slash_body("/model", "", user=OWNER, channel="C0FORGED1", key="k")
        headers = slack.build_headers(body, "application/x-www-form-urlencoded")
        headers["X-Slack-Signature"] = "v0=" + "0" * 64
        status, _ = await slack.post(body, headers)
    assert status == 401
    assert path.read_text() == ""  # not even the header: nothing of Slack's was recorded
