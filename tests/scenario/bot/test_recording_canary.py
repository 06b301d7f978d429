"""Issue 28's canary: signed bodies the bot cannot read leave no secret and no real id behind.

The real bot (local mode, signature checks on, pseudonyms on) records signed bodies that do
not parse (a form labelled JSON, truncated JSON, JSON of JSON, a form whose ``payload`` is
JSON of JSON, bytes that are not UTF-8), each carrying every secret the recorder knows of in
every encoding (raw, percent, JSON escapes, base64), and the real team, user and channel ids
and names. The file is then read byte by byte for each of them in each encoding. Readable
bodies carrying the known secrets encoded again (pasted by a person) are checked the same way.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from bot.recording import load
from bot.recording.scrub import UNREADABLE
from harness.config import Settings

from .conftest import Slack, posting_to, serve_bot
from .test_click import until

BOT_TOKEN = "xoxb-2222222222-3333333333-canaryBOTtokenCANARY"
PAYLOAD_KEY = "q+7/Zk3W/xY9+aBcDeFgHiJkLmNoPqRsTuVwXyZ0123="
"""Shaped like the worker's payload key: base64, with the characters percent-encoding changes."""
RESPONSE_PATH = "actions/T0CANARY1/1234567890/RespUrlPathCanary0123456789"
RESPONSE_URL = f"https://hooks.slack.com/{RESPONSE_PATH}"
CLIENT_SECRET = "clientSecretCanary0123456789abcdef"
VERIFICATION = "verificationTokenCanary42"
MARKER = "pasted-canaries"
SECRETS = {
    "signing secret": Slack.signing_secret,
    "bot token": BOT_TOKEN,
    "payload key": PAYLOAD_KEY,
    "response URL path": RESPONSE_PATH,
    "client secret": CLIENT_SECRET,
    "verification token": VERIFICATION,
}
REAL = {
    "team id": "T0CANARY1",
    "user id": "U0CANARY2",
    "channel id": "C0CANARY3",
    "user name": "canary.person",
    "channel name": "canary-channel",
    "team domain": "canaryworkspace",
}
ENCODINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "percent": lambda s: quote(s, safe=""),
    "json escapes": lambda s: json.dumps(s)[1:-1].replace("/", "\\/"),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
}


@pytest.fixture
def settings(settings: Settings, bot_port: int) -> Settings:
    """The worker posts to this test's bot, whose stand-in records its calls."""
    return posting_to(settings, bot_port)


def _carrying(values: dict[str, str]) -> dict[str, str]:
    """A field per value and encoding, as a body would carry them."""
    return {
        f"{name} {encoding}".replace(" ", "_"): encode(value)
        for name, value in values.items()
        for encoding, encode in ENCODINGS.items()
    }


def _fields() -> dict[str, str]:
    carried = _carrying(SECRETS | REAL)
    named = {
        "token": VERIFICATION,
        "team_id": REAL["team id"],
        "user_id": REAL["user id"],
        "channel_id": REAL["channel id"],
        "user_name": REAL["user name"],
        "channel_name": REAL["channel name"],
        "team_domain": REAL["team domain"],
        "response_url": RESPONSE_URL,
        "client_secret": CLIENT_SECRET,
        "command": "/model",
        "text": " ".join(carried.values()),
    }
    return named | carried


def _unreadable_bodies() -> dict[str, tuple[bytes, str]]:
    """Signed bodies the gate refuses as malformed, and their content types."""
    fields = _fields()
    as_json = json.dumps(fields)
    form = urlencode(fields)
    return {
        "a form labelled JSON": (form.encode(), "application/json"),
        "truncated JSON": (as_json[: len(as_json) - 40].encode(), "application/json"),
        "JSON of JSON": (json.dumps(as_json).encode(), "application/json"),
        "a payload of JSON of JSON": (
            urlencode({"payload": json.dumps(as_json)}).encode(),
            "application/x-www-form-urlencoded",
        ),
        "not UTF-8": (b"\xff\xfe" + form.encode(), "application/x-www-form-urlencoded"),
        "a form with a field twice": (
            (form + "&" + form).encode(),
            "application/x-www-form-urlencoded",
        ),
    }


def _signed(body: bytes, content_type: str) -> dict[str, str]:
    """Slack's headers for ``body``, signed over its bytes (slack_sdk signs only UTF-8)."""
    ts = str(int(time.time()))
    base = b"v0:" + ts.encode() + b":" + body
    mac = hmac.new(Slack.signing_secret.encode(), base, hashlib.sha256).hexdigest()
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": f"v0={mac}",
    }


def _leaks(raw: bytes, values: dict[str, str]) -> list[str]:
    text = raw.decode("utf-8", "replace")
    return [
        f"{name} ({encoding})"
        for name, value in values.items()
        for encoding, encode in ENCODINGS.items()
        if encode(value) in text
    ]


async def test_unreadable_signed_bodies_leave_no_secret_and_no_real_id_in_the_file(
    harness, tmp_path: Path
):
    path = tmp_path / "canary.jsonl"
    bodies = _unreadable_bodies()
    async for slack in serve_bot(
        harness, tmp_path, record=path, record_pseudonymise=True, bot_token=BOT_TOKEN
    ):
        assert slack.bot.recorder is not None
        slack.bot.recorder.scrubber.add_secret(PAYLOAD_KEY)  # as python -m bot passes the worker's
        for name, (body, content_type) in bodies.items():
            status, answer = await slack.post(body, _signed(body, content_type))
            assert (status, answer) == (400, "malformed body"), name
    raw = path.read_bytes()
    assert _leaks(raw, SECRETS) == []
    assert _leaks(raw, REAL) == []
    recording = load(path)  # every body is there, recorded, as what it was: a length and a hash
    assert len(recording.requests) == len(bodies)
    for request, (body, _) in zip(recording.requests, bodies.values(), strict=True):
        assert request.http is not None and request.response is not None
        assert request.http.body.startswith(f"{UNREADABLE}{len(body)} bytes, hmac-sha256 ")
        assert request.response.status == 400


async def test_readable_bodies_lose_the_known_secrets_pasted_in_any_encoding(
    harness, worker, bot_port: int, tmp_path: Path
):
    """What a person pastes: the known secrets and a response URL re-encoded, in a command's
    text and a mention's (which the agent's answer quotes back); the bodies are recorded
    (pseudonymised), none of these is."""
    path = tmp_path / "pasted.jsonl"
    known = {k: SECRETS[k] for k in ("signing secret", "bot token", "payload key")}
    pasted = MARKER + " " + " ".join(_carrying(known).values())
    urls = [RESPONSE_URL, quote(RESPONSE_URL, safe=""), RESPONSE_URL.replace("/", "\\/")]
    pasted += " " + " ".join(urls)
    async for slack in serve_bot(
        harness,
        tmp_path,
        record=path,
        record_pseudonymise=True,
        bot_token=BOT_TOKEN,
        port=bot_port,
    ):
        assert slack.bot.recorder is not None
        slack.bot.recorder.scrubber.add_secret(PAYLOAD_KEY)
        status, _ = await slack.slash(
            "/model", pasted, user=REAL["user id"], channel=REAL["channel id"]
        )
        assert status == 200
        body = slack.event_body(
            "app_mention.json", channel=REAL["channel id"], user=REAL["user id"], text=pasted
        )
        status, _ = await slack.post(body, slack.build_headers(body, "application/json"))
        assert status == 200
        await until(partial(_quoted, slack.bot.standin.calls), "the agent's answer")
        await asyncio.sleep(0.5)  # the progress message's last update
    raw = path.read_bytes()
    assert _leaks(raw, known) == []
    assert [url for url in urls if url in raw.decode()] == []
    assert RESPONSE_PATH.rsplit("/", 1)[1] not in raw.decode()
    assert _leaks(raw, {k: REAL[k] for k in ("user id", "channel id")}) == []
    recording = load(path)
    command = recording.requests[0].payload()
    assert command["command"] == "/model" and "[REDACTED]" in command["text"]  # read, scrubbed
    quoted = [e for e in recording.effects[recording.requests[1].id] if e.type == "web_api"]
    assert any(MARKER in json.dumps(e.args) for e in quoted)  # the answer is there, scrubbed


def _quoted(calls: list) -> bool:
    return any(MARKER in json.dumps(a) for m, a in calls if m == "chat.postMessage")
