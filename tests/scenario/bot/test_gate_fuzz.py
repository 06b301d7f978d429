"""The Slack gate never answers 5xx, whatever a signed body or a header holds (issue 9).

Hypothesis mutates recorded payloads of every request type the bot serves (events:
``app_mention`` and ``message``; slash commands; ``block_actions`` clicks;
``url_verification``; ``ssl_check``): a value swapped for any JSON value, a key
dropped, keys bolt reads added with odd values, huge values, bytes that are not
UTF-8, headers with odd bytes. Every request is correctly signed, so it passes the
signature check and reaches the parsing and bolt behind it. The answer must be a 4xx
or a benign 200, and no log record may carry a traceback. The real bot over real
HTTP; a stand-in harness answers at once, so no worker is needed and a run takes
a few seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qsl, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.domain import CommandResult
from harness.temporal.models import Delivery
from tests.support.leaks import collect_earlier_leaks

from .conftest import FIXTURES, Slack, serve_bot

FORM = "application/x-www-form-urlencoded"
FUZZ = settings(
    max_examples=60,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Keys bolt's context builders, matchers and built-in middleware read, at any level.
READ_KEYS = (
    "type",
    "subtype",
    "event",
    "team",
    "team_id",
    "enterprise",
    "enterprise_id",
    "user",
    "user_id",
    "channel",
    "channel_id",
    "authorizations",
    "view",
    "message",
    "previous_message",
    "item",
    "assistant_thread",
    "function_data",
    "response_url",
    "response_urls",
    "actions",
    "container",
    "command",
    "text",
    "trigger_id",
    "thread_ts",
    "ts",
    "bot_id",
    "user_team",
    "is_ext_shared_channel",
    "is_enterprise_install",
    "challenge",
    "ssl_check",
    "token",
    "callback_id",
    "action_id",
    "block_id",
    "value",
    "id",
    "event_id",
    "function_execution_id",
    "bot_access_token",
    "inputs",
    "edited",
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
ODD = JSON | st.sampled_from(
    [
        "",
        "x" * 100_000,
        10**300,
        -(2**70),
        1e308,
        [],
        {},
        [[]],
        [{}],
        "\x00",
        "\udc80",
        "<@U1>",
        "\u202e",
        "hooks.slack.com",
        "https://evil.example/",
    ]
)


class InstantHarness:
    """Answers every call at once, so the fuzz exercises the bot, not a task."""

    async def snapshot(self, task_id: str) -> Any:
        raise AssertionError("the bot does not read snapshots")

    async def send_command(self, ctx: Any) -> CommandResult:
        return CommandResult(reply="ok")

    async def receive(self, request: Any) -> Delivery:
        return Delivery(task_id="task/T/C", started=False, position=1)

    async def answer_help(self, task_id: str, click: Any) -> None:
        return None


class Traceback(logging.Handler):
    """Keeps every record with a traceback, and every ERROR."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.bad: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or record.levelno >= logging.ERROR:
            self.bad.append(record)


@pytest.fixture(scope="module")
async def fuzzed(tmp_path_factory) -> AsyncIterator[tuple[Slack, Traceback]]:
    collect_earlier_leaks()
    handler = Traceback()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        async for slack in serve_bot(InstantHarness(), tmp_path_factory.mktemp("fuzz")):
            yield slack, handler
    finally:
        root.removeHandler(handler)


def sign(body: bytes, timestamp: str | None = None) -> dict[str, str]:
    ts = timestamp or str(int(time.time()))
    mac = hmac.new(
        Slack.signing_secret.encode(), b"v0:" + ts.encode() + b":" + body, hashlib.sha256
    ).hexdigest()
    return {"X-Slack-Request-Timestamp": ts, "X-Slack-Signature": f"v0={mac}"}


async def post(fuzzed, body: bytes, content_type: str, **extra: str) -> int:
    slack, _ = fuzzed
    headers = {"Content-Type": content_type, **sign(body), **extra}
    async with slack.session.post(slack.url, data=body, headers=headers) as response:
        await response.read()
        status = response.status
    await slack.bot.slash.drain()
    return status


def check(status: int, handler: Traceback, what: object) -> None:
    assert status < 500, f"{status} for {what!r}"
    bad = [f"{r.levelname} {r.name}: {r.getMessage()}" for r in handler.bad]
    handler.bad.clear()
    assert not bad, f"{bad} for {what!r}"


def load(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text())


SLASH = dict(parse_qsl((FIXTURES / "slash_command.txt").read_text().strip()))
BASES = {
    "app_mention": load("app_mention.json"),
    "message": load("message_in_thread.json"),
    "block_actions": load("block_actions_help.json"),
    "url_verification": load("url_verification.json"),
}


WRONG = (None, 0, 1.5, True, "", "x", [], [{}], ["x"], {}, {"id": 5})
"""A value of every JSON type (and the empty ones): at least one is wrong for any key."""


def nodes(value: Any, path: tuple = ()) -> list[tuple[tuple, dict]]:
    """Every object in ``value`` with its path."""
    found = [(path, value)] if isinstance(value, dict) else []
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, child in children:
        found += nodes(child, (*path, key))
    return found


def swept(base: dict[str, Any]) -> list[Any]:
    """``base`` once for each key of each object in it dropped, and once per value in WRONG."""
    variants = []
    for path, node in nodes(base):
        for key in node:
            for value in (*WRONG, KeyError):
                copy = json.loads(json.dumps(base))
                target = copy
                for step in path:
                    target = target[step]
                if value is KeyError:
                    del target[key]
                else:
                    target[key] = value
                variants.append(copy)
    return variants


@st.composite
def mutated(draw, base: dict[str, Any]) -> Any:
    """``base`` with a few values anywhere in it replaced, dropped or added."""
    value = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(1, 3))):
        target = value
        path = draw(
            st.lists(
                st.sampled_from(
                    ["event", "actions", "user", "team", "channel", "container", "message", 0]
                ),
                max_size=2,
            )
        )
        for step in path:
            if (
                isinstance(target, dict)
                and isinstance(step, str)
                and isinstance(target.get(step), dict | list)
            ):
                target = target[step]
            elif isinstance(target, list) and target and step == 0:
                target = target[0]
        if not isinstance(target, dict):
            continue
        own = st.sampled_from(sorted(target)) if target else st.nothing()
        key = draw(own | own | st.sampled_from(READ_KEYS))  # its own keys twice as often
        if draw(st.booleans()) and key in target:
            del target[key]
        else:
            target[key] = draw(ODD)
    return value


def form(fields: dict[str, Any]) -> bytes:
    """A form body; a lone surrogate becomes the bytes no UTF-8 decoder takes."""
    return urlencode(
        {
            k: (v if isinstance(v, str) else json.dumps(v)).encode("utf-8", "surrogatepass")
            for k, v in fields.items()
        }
    ).encode()


@pytest.mark.parametrize("kind", sorted(BASES))
async def test_every_key_of_every_payload_dropped_or_of_any_type_gets_no_5xx(fuzzed, kind):
    for body in swept(BASES[kind]):
        raw, content_type = json.dumps(body).encode(), "application/json"
        if kind == "block_actions":  # interactivity: a form whose one field is the JSON
            raw, content_type = urlencode({"payload": raw}).encode(), FORM
        check(await post(fuzzed, raw, content_type), fuzzed[1], body)


@pytest.mark.parametrize("kind", ["app_mention", "message", "url_verification"])
@FUZZ
@given(data=st.data())
async def test_signed_event_bodies_of_any_shape_get_no_5xx(fuzzed, kind, data):
    body = data.draw(mutated(BASES[kind]) | ODD, label="body")
    raw = json.dumps(body).encode()
    check(await post(fuzzed, raw, "application/json"), fuzzed[1], body)


@FUZZ
@given(data=st.data())
async def test_signed_block_actions_of_any_shape_get_no_5xx(fuzzed, data):
    body = data.draw(mutated(BASES["block_actions"]) | ODD, label="payload")
    raw = urlencode({"payload": json.dumps(body)}).encode()
    check(await post(fuzzed, raw, FORM), fuzzed[1], body)


@FUZZ
@given(
    fields=st.dictionaries(
        st.sampled_from(sorted(SLASH) + list(READ_KEYS)), st.text(max_size=30) | ODD, max_size=6
    )
)
async def test_signed_slash_commands_and_ssl_checks_of_any_shape_get_no_5xx(fuzzed, fields):
    for base in (SLASH, {"ssl_check": "1", "token": "x"}):
        raw = form({**base, **fields})
        check(await post(fuzzed, raw, FORM), fuzzed[1], fields)


@FUZZ
@given(
    raw=st.binary(max_size=300),
    content_type=st.sampled_from(
        [
            "application/json",
            FORM,
            "text/plain",
            "",
        ]
    ),
)
async def test_signed_bytes_that_are_not_a_body_get_no_5xx(fuzzed, raw, content_type):
    for body in (
        raw,
        b"payload=" + raw,
        b'{"type": "event_callback", "event": "' + raw + b'"}',
        b"command=%2Fhelp&text=" + raw,
    ):
        check(await post(fuzzed, body, content_type), fuzzed[1], body)


async def test_deeply_nested_signed_json_gets_no_5xx(fuzzed):
    for body in (
        b'{"event": ' * 5000 + b"{}" + b"}" * 5000,
        b"[" * 100_000 + b"]" * 100_000,
        b'{"type": "event_callback", "event_id": 1' + b"0" * 5000 + b"}",
    ):
        check(await post(fuzzed, body, "application/json"), fuzzed[1], body[:40])


async def raw_request(slack: Slack, head: bytes, body: bytes) -> int:
    """One HTTP/1.1 request written byte for byte (aiohttp's client would clean the headers)."""
    host, port = slack.url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        + head
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    return int(status_line.split()[1])


ODD_BYTES = st.binary(min_size=1, max_size=8).filter(lambda b: b"\r" not in b and b"\n" not in b)


@FUZZ
@given(
    odd=ODD_BYTES,
    where=st.sampled_from(["signature", "timestamp", "content-type", "retry", "lazy"]),
)
async def test_headers_with_odd_bytes_get_no_5xx(fuzzed, odd, where):
    slack, handler = fuzzed
    body = json.dumps(BASES["app_mention"]).encode()
    headers = sign(body)
    signature, timestamp = (
        headers["X-Slack-Signature"].encode(),
        headers["X-Slack-Request-Timestamp"].encode(),
    )
    content_type, extra = b"application/json", b""
    if where == "signature":
        signature = signature[:10] + odd + signature[10:]
    elif where == "timestamp":
        timestamp += odd
    elif where == "content-type":
        content_type += odd
    elif where == "retry":
        extra = b"X-Slack-Retry-Num: " + odd + b"\r\n"
    else:
        extra = b"X-Slack-Bolt-Lazy-Only: " + odd + b"\r\n"
    head = (
        b"Content-Type: "
        + content_type
        + b"\r\nX-Slack-Signature: "
        + signature
        + b"\r\nX-Slack-Request-Timestamp: "
        + timestamp
        + b"\r\n"
        + extra
    )
    status = await raw_request(slack, head, body)
    check(status, handler, (where, odd))


async def test_a_non_ascii_signature_is_401_not_500(fuzzed):
    slack, handler = fuzzed
    body = json.dumps(BASES["app_mention"]).encode()
    headers = sign(body)
    head = (
        "Content-Type: application/json\r\nX-Slack-Signature: v0=é"
        + "0" * 63
        + "\r\nX-Slack-Request-Timestamp: "
        + headers["X-Slack-Request-Timestamp"]
        + "\r\n"
    ).encode()
    assert await raw_request(slack, head, body) == 401
    check(401, handler, "non-ASCII signature")


async def test_an_event_whose_event_is_not_an_object_is_400(fuzzed):
    for event in ("hello", 5, None, ["x"]):
        body = json.dumps({**BASES["app_mention"], "event": event}).encode()
        assert await post(fuzzed, body, "application/json") == 400, event
        check(400, fuzzed[1], event)
