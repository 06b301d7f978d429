"""Forged, stale and malformed requests through real HTTP: 4xx, never a 5xx, never dispatched."""

from __future__ import annotations

import json
import logging
import time
from urllib.parse import urlencode

import pytest

from tests.support.leaks import collect_earlier_leaks

from .conftest import FIXTURES, serve_bot

FORM = "application/x-www-form-urlencoded"


@pytest.fixture
async def gate(harness, tmp_path):
    """The bot with no worker behind it: none of these requests may reach the task."""
    async for sender in serve_bot(harness, tmp_path, max_body_bytes=64 * 1024):
        yield sender


async def test_forged_signature_is_401(gate):
    body = gate.slash_body("/model", "gpt-x", user="U0OWNER", channel="C1", key="k")
    headers = gate.build_headers(body, FORM)
    headers["X-Slack-Signature"] = "v0=" + "0" * 64
    assert await gate.post(body, headers) == (401, "invalid signature or timestamp")


async def test_stale_timestamp_is_401(gate):
    body = gate.slash_body("/model", "gpt-x", user="U0OWNER", channel="C1", key="k")
    stale = str(int(time.time()) - 600)
    assert (await gate.post(body, gate.build_headers(body, FORM, timestamp=stale)))[0] == 401


@pytest.mark.parametrize("timestamp", ["soon", "", "1e9", "-5"])
async def test_non_numeric_timestamp_is_401(gate, timestamp):
    body = gate.slash_body("/task", "help", user="U0OWNER", channel="C1", key="k")
    headers = gate.build_headers(body, FORM)
    headers["X-Slack-Request-Timestamp"] = timestamp
    assert (await gate.post(body, headers))[0] == 401


async def test_signed_truncated_json_is_400(gate):
    body = (FIXTURES / "app_mention.json").read_text()[:80]
    assert await gate.post(body, gate.build_headers(body, "application/json")) == (
        400,
        "malformed body",
    )


async def test_signed_form_body_labelled_json_is_400(gate):
    body = gate.slash_body("/task", "help", user="U0OWNER", channel="C1", key="k")
    assert (await gate.post(body, gate.build_headers(body, "application/json")))[0] == 400


async def test_signed_json_array_is_400(gate):
    body = json.dumps([1, 2, 3])
    assert (await gate.post(body, gate.build_headers(body, "application/json")))[0] == 400


@pytest.mark.parametrize("field", ["text", "command", "user_id"])
async def test_a_signed_form_body_with_a_field_twice_is_400_and_reaches_no_task(gate, field):
    """Which value would apply is the parser's guess: an ambiguous body is refused (issue 26)."""
    body = gate.slash_body("/model", "gpt-x", user="U0OWNER", channel="C1", key="k")
    twice = (
        f"{body}&{urlencode({field: {'text': 'claude-y', 'command': '/task'}.get(field, 'U9')})}"
    )
    assert await gate.post(twice, gate.build_headers(twice, FORM)) == (400, "malformed body")


async def test_huge_body_is_413_without_checking_it(gate):
    body = "text=" + "x" * (200 * 1024)
    assert (await gate.post(body, gate.build_headers(body, FORM)))[0] == 413


async def test_invalid_utf8_is_rejected_with_4xx(gate):
    body = b"command=%2Fhelp&text=\xff\xfe"
    headers = gate.build_headers(body.decode("latin-1"), FORM)
    status, _ = await gate.post(body, headers)
    assert 400 <= status < 500


async def test_unknown_command_gets_a_pointer_to_help(gate):
    status, reply = await gate.slash("/teleport", "mars", user="U0OWNER", channel="C1")
    assert (status, reply) == (200, "`/teleport` is not a command here; `/task help` lists them")


async def test_url_verification_answers_the_challenge(gate):
    body = (FIXTURES / "url_verification.json").read_text()
    status, text = await gate.post(body, gate.build_headers(body, "application/json"))
    assert status == 200 and "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in text


class Broken:
    """A harness that fails in a way no listener expects."""

    async def receive(self, request):
        raise RuntimeError("the harness broke\nsecond line with xoxb-1234-5678-secret")


async def test_a_listener_that_fails_is_answered_400_in_one_log_line(tmp_path, caplog):
    collect_earlier_leaks()
    caplog.clear()
    async for broken in serve_bot(Broken(), tmp_path):
        body = (FIXTURES / "app_mention.json").read_text()
        status, text = await broken.post(body, broken.build_headers(body, "application/json"))
    assert (status, text) == (400, "bad request")
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    [line] = [r.getMessage() for r in caplog.records if "answered 400" in r.getMessage()]
    assert line == "request not handled (RuntimeError: the harness broke); answered 400"
