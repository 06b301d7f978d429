"""The codec server over real HTTP: what the Web UI and ``temporal --codec-endpoint`` send.

The app is served by aiohttp on a loopback port; one test runs the module itself as a
subprocess, as an operator starts it, and its refusals to start run its ``main`` in-process.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web
from google.protobuf import json_format
from temporalio.api.common.v1 import Payload

from harness.domain import ChannelMessage
from harness.http import is_loopback
from harness.temporal.codec import EncryptionCodec, data_converter
from harness.temporal.codec_server import (
    ALLOWED_HEADERS,
    CodecServerSettings,
    allowed_origins,
    codec_app,
)
from harness.temporal.codec_server import main as codec_main
from harness.temporal.keys import new_key, parse_keys
from tests.support.cli import harness_env, run_here

UI = "http://localhost:8233"
TOKEN = "codec-" + os.urandom(8).hex()
KEY = new_key()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def serve(app: web.Application) -> AsyncIterator[str]:
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest.fixture
async def server() -> AsyncIterator[str]:
    async for url in serve(codec_app(EncryptionCodec(parse_keys(KEY)), origins=[UI])):
        yield url


@pytest.fixture
async def guarded() -> AsyncIterator[str]:
    async for url in serve(codec_app(EncryptionCodec(parse_keys(KEY)), origins=[UI], token=TOKEN)):
        yield url


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def wire(payloads: list[Payload]) -> dict:
    return {"payloads": [json_format.MessageToDict(p) for p in payloads]}


def unwire(body: dict) -> list[Payload]:
    return [json_format.ParseDict(p, Payload()) for p in body["payloads"]]


async def test_decode_opens_what_the_worker_sealed(server, http):
    converter = data_converter(parse_keys(KEY))
    message = ChannelMessage(channel="C1", text="a transcript line")
    sealed = await converter.encode([message])
    headers = {"Origin": UI, "X-Namespace": "default", "Content-Type": "application/json"}
    async with http.post(f"{server}/decode", json=wire(sealed), headers=headers) as response:
        assert response.status == 200
        assert response.headers["Access-Control-Allow-Origin"] == UI
        opened = unwire(await response.json())
    assert opened[0].metadata["encoding"] == b"json/plain"
    assert converter.payload_converter.from_payloads(opened, [ChannelMessage]) == [message]


async def test_encode_then_decode_round_trips_under_a_namespace_prefix(server, http):
    original = [Payload(metadata={"encoding": b"json/plain"}, data=b'"from the CLI"')]
    async with http.post(f"{server}/default/encode", json=wire(original)) as response:
        sealed = unwire(await response.json())
    assert sealed[0].metadata["encoding"] != b"json/plain"
    async with http.post(f"{server}/default/decode", json=wire(sealed)) as response:
        assert unwire(await response.json()) == original


async def test_cors_preflight_answers_the_configured_origin_only(server, http):
    preflight = {
        "Origin": UI,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,x-namespace",
    }
    async with http.options(f"{server}/decode", headers=preflight) as response:
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Origin"] == UI
        assert response.headers["Access-Control-Allow-Headers"] == ALLOWED_HEADERS
        assert "POST" in response.headers["Access-Control-Allow-Methods"]
    other = {**preflight, "Origin": "https://evil.example"}
    async with http.options(f"{server}/decode", headers=other) as response:
        assert "Access-Control-Allow-Origin" not in response.headers


def test_the_allow_list_holds_the_local_ui_by_both_names_and_the_linked_ui(monkeypatch):
    # /task status links to HARNESS_TEMPORAL_UI_URL: that origin is always let in (issue 26)
    linked = "http://127.0.0.1:18233/namespaces/default/workflows"
    assert allowed_origins(CodecServerSettings(), linked) == (
        "http://127.0.0.1:8233",
        "http://localhost:8233",
        "http://127.0.0.1:18233",
    )
    assert allowed_origins(CodecServerSettings(), "") == allowed_origins(
        CodecServerSettings(), "http://localhost:8233/"
    )
    monkeypatch.setenv("HARNESS_CODEC_SERVER_ORIGINS", "https://UI.example/, http://127.0.0.1:9")
    assert CodecServerSettings().origins == ("https://ui.example", "http://127.0.0.1:9")
    monkeypatch.delenv("HARNESS_CODEC_SERVER_ORIGINS")
    monkeypatch.setenv("HARNESS_CODEC_SERVER_ORIGIN", "https://ui.example")  # the old name
    assert CodecServerSettings().origins == ("https://ui.example",)


async def test_every_origin_of_the_list_is_answered(http):
    origins = ["http://127.0.0.1:8233", "http://localhost:8233"]
    async for url in serve(codec_app(EncryptionCodec(parse_keys(KEY)), origins=origins)):
        for origin in origins:
            preflight = {"Origin": origin, "Access-Control-Request-Method": "POST"}
            async with http.options(f"{url}/decode", headers=preflight) as response:
                assert response.headers["Access-Control-Allow-Origin"] == origin


def test_an_origin_that_is_not_one_stops_the_start_in_one_line(monkeypatch, capsys):
    err = refused_here(
        monkeypatch, capsys, HARNESS_PAYLOAD_KEY=KEY, HARNESS_CODEC_SERVER_ORIGINS="ui"
    )
    assert err.count("\n") == 1
    assert err.startswith("codec server not starting: ") and "http://127.0.0.1:8233" in err


async def test_with_a_token_set_a_request_without_it_is_401(guarded, http):
    body = wire([Payload(metadata={"encoding": b"json/plain"}, data=b"1")])
    async with http.post(f"{guarded}/decode", json=body, headers={"Origin": UI}) as response:
        assert response.status == 401
        assert response.headers["Access-Control-Allow-Origin"] == UI  # the UI can show why
    wrong = {"Authorization": "Bearer nope"}
    async with http.post(f"{guarded}/decode", json=body, headers=wrong) as response:
        assert response.status == 401
    right = {"Authorization": f"Bearer {TOKEN}"}
    async with http.post(f"{guarded}/decode", json=body, headers=right) as response:
        assert response.status == 200
    preflight = {"Origin": UI, "Access-Control-Request-Method": "POST"}
    async with http.options(f"{guarded}/decode", headers=preflight) as response:
        assert response.status == 204  # a browser's preflight never carries the token


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "the body is not JSON"),
        (b"\xff\xfe", "the body is not JSON"),
        (b'{"payload": []}', 'the body needs "payloads"'),
        (b'{"payloads": {"a": 1}}', 'the body needs "payloads"'),
        (b'{"payloads": [1]}', "payload 0 is not a Temporal payload"),
        (b'{"payloads": [{"metadata": 5}]}', "payload 0 is not a Temporal payload"),
        (b'{"payloads": [{"data": "AA=="}, {"surprise": true}]}', "payload 1 is not"),
    ],
    ids=[
        "broken-json",
        "not-utf8",
        "no-payloads",
        "payloads-not-a-list",
        "payload-not-object",
        "bad-metadata",
        "unknown-field",
    ],
)
async def test_garbage_is_400_with_a_reason(server, http, body, reason):
    async with http.post(f"{server}/decode", data=body) as response:
        assert response.status == 400
        assert reason in await response.text()


async def test_a_payload_under_an_unknown_key_is_400_naming_its_id(server, http):
    stranger = parse_keys(new_key())
    sealed = await EncryptionCodec(stranger).encode([Payload(data=b"1")])
    async with http.post(f"{server}/decode", json=wire(sealed)) as response:
        assert response.status == 400
        assert stranger[0].id in await response.text()


def test_only_loopback_hosts_count_as_local():
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "10.0.0.5", "::", "codec.internal"]))


def codec_server(port: int, **env: str) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    clean.update(HARNESS_CODEC_SERVER_PORT=str(port), **env)
    return subprocess.Popen(
        [sys.executable, "-m", "harness.temporal.codec_server"],
        env=clean,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def refused_here(monkeypatch, capsys, **env: str) -> str:
    """:func:`codec_server` refusing to start, through the same ``main`` in this process (the
    same environment, exit status 2 and line; the last test starts it as an operator does)."""
    harness_env(monkeypatch, HARNESS_CODEC_SERVER_PORT=str(free_port()), **env)
    refused = run_here(lambda _: codec_main() or 0, [], capsys)
    assert refused.returncode == 2
    return refused.stderr


def test_it_will_not_listen_beyond_loopback_without_a_token(monkeypatch, capsys):
    err = refused_here(
        monkeypatch, capsys, HARNESS_PAYLOAD_KEY=KEY, HARNESS_CODEC_SERVER_HOST="0.0.0.0"
    )
    assert err == (
        "codec server not starting: HARNESS_CODEC_SERVER_TOKEN is required to listen on "
        "0.0.0.0, which is not a loopback address\n"
    )


def test_it_will_not_start_without_a_key(tmp_path, monkeypatch, capsys):
    err = refused_here(monkeypatch, capsys, HARNESS_DATA_DIR=str(tmp_path))
    assert err.startswith("codec server not starting: HARNESS_PAYLOAD_KEY")


async def test_the_module_serves_the_protocol_as_started_by_an_operator(http):
    port = free_port()
    proc = codec_server(port, HARNESS_PAYLOAD_KEY=KEY, HARNESS_CODEC_SERVER_TOKEN=TOKEN)
    try:
        deadline = time.monotonic() + 30
        sealed = await EncryptionCodec(parse_keys(KEY)).encode([Payload(data=b'"up"')])
        headers = {"Authorization": f"Bearer {TOKEN}"}
        while True:
            assert proc.poll() is None, proc.communicate()[1]
            try:
                async with http.post(
                    f"http://127.0.0.1:{port}/decode", json=wire(sealed), headers=headers
                ) as response:
                    assert unwire(await response.json()) == [Payload(data=b'"up"')]
                    break
            except aiohttp.ClientConnectionError:
                assert time.monotonic() < deadline, "codec server did not listen in 30 s"
                await asyncio.sleep(0.1)
    finally:
        proc.terminate()
        _, log = proc.communicate(timeout=10)
    assert parse_keys(KEY)[0].id in log and KEY not in log  # the id is logged, never the key
