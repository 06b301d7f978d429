"""Signed JSON-RPC hook calls end to end (issue 15, point 3), through real aiohttp servers.

The worker signs every request of an executor configured with ``signing_secret``;
``jsonrpc_app(secrets=...)`` verifies before any handler runs and answers 401 with a
JSON body saying what was wrong. The secrets stay out of errors, logs and the audit.
"""

from __future__ import annotations

import base64
import logging
import re
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web

from harness.domain import ToolCall
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import (
    HookConfigError,
    HookManager,
    HooksReload,
    HookTransportError,
    load_hooks_config,
)
from harness.hooks.contexts import ShutdownContext, ToolInvokedContext
from harness.hooks.remote.jsonrpc import JsonRpcExecutor
from harness.hooks.remote.signing import SignatureError, Signer, message_id
from harness.hooks.remote.wire import encode_request

POINT = "tool.invoked.pre"
OLD = "whsec_" + base64.b64encode(b"old-key-" * 4).decode()
NEW = "whsec_" + base64.b64encode(b"new-key-" * 4).decode()
CANARY = "whsec_" + base64.b64encode(b"CANARY-never-print-me-" * 2).decode()


@dataclass
class Server:
    url: str
    handled: list[ToolInvokedContext] = field(default_factory=list)
    ids: list[str | None] = field(default_factory=list)


async def _start(app: web.Application) -> tuple[web.AppRunner, str]:
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    return runner, f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"


def signed_app(server: Server, **verify: object) -> web.Application:
    def tag(ctx: ToolInvokedContext) -> ToolInvokedContext:
        server.handled.append(ctx)
        return ctx.model_copy(update={"entities": {**ctx.entities, "verified": "yes"}})

    @web.middleware
    async def record(request: web.Request, handler):
        server.ids.append(request.headers.get("webhook-id"))
        return await handler(request)

    app = jsonrpc_app({POINT: tag}, path="/hooks", **verify)  # type: ignore[arg-type]
    app.middlewares.append(record)
    return app


@pytest.fixture
async def knows_old() -> AsyncIterator[Server]:
    server = Server(url="")
    runner, server.url = await _start(signed_app(server, secrets=OLD))  # one: a str will do
    yield server
    await runner.cleanup()


def ctx(key: str = "task/T/C/run/7:tool:1", attempt: int = 1) -> ToolInvokedContext:
    return ToolInvokedContext(
        idempotency_key=key, attempt=attempt, call=ToolCall(id="c1", name="search")
    )


async def call(url: str, context: ToolInvokedContext | None = None, **kw: object):
    executor = JsonRpcExecutor(url, point=POINT, **kw)  # type: ignore[arg-type]
    try:
        return await executor(context or ctx())
    finally:
        await executor.aclose()


async def test_a_signed_call_is_verified_and_served(knows_old):
    out = await call(knows_old.url, signing_secrets=[OLD])
    assert out is not None and out.entities["verified"] == "yes"
    assert len(knows_old.handled) == 1


@pytest.mark.parametrize(
    ("secrets", "problem"),
    [((), "unsigned"), ((NEW,), "mismatch")],
    ids=["unsigned", "wrong-secret"],
)
async def test_an_unsigned_or_wrongly_signed_call_is_refused_401(knows_old, secrets, problem):
    with pytest.raises(HookTransportError) as caught:
        await call(knows_old.url, signing_secrets=secrets)
    text = str(caught.value)
    assert "HTTP 401" in text and f"signature {problem}" in text
    assert knows_old.handled == []  # the handler never ran


@pytest.mark.parametrize(("skew", "problem"), [(-600, "stale"), (600, "future")])
async def test_a_replayed_or_future_request_is_refused(knows_old, skew, problem):
    body = encode_request(1, POINT, {"context": ctx()})
    headers = Signer([OLD]).headers("msg_replayed", body, now=time.time() + skew)
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            knows_old.url, data=body, headers={"content-type": "application/json", **headers}
        ) as resp,
    ):
        assert resp.status == 401
        reply = await resp.json()
    assert reply["error"] == "unauthorized" and reply["problem"] == problem
    assert "tolerance is 300s" in reply["message"]
    assert knows_old.handled == []


@pytest.mark.parametrize(
    "headers",
    [
        {"webhook-id": "m", "webhook-timestamp": "now", "webhook-signature": "v1,AAAA"},
        {"webhook-id": "m\u00e9\u2028", "webhook-timestamp": "1", "webhook-signature": "x"},
        {"webhook-id": "m", "webhook-timestamp": "1", "webhook-signature": "v1," + "A" * 6000},
    ],
    ids=["word-timestamp", "odd-characters", "huge-signature"],
)
async def test_hostile_headers_get_a_401_never_a_5xx(knows_old, headers):
    encoded = {k: v.encode("utf-8").decode("latin-1") for k, v in headers.items()}
    async with (
        aiohttp.ClientSession() as session,
        session.post(knows_old.url, data=b"{}", headers=encoded) as resp,
    ):
        assert resp.status == 401
        assert (await resp.json())["error"] == "unauthorized"


async def test_rotation_the_client_signs_with_new_and_old_while_the_server_knows_old(knows_old):
    out = await call(knows_old.url, signing_secrets=[NEW, OLD])
    assert out is not None and out.entities["verified"] == "yes"


@pytest.mark.parametrize("client_secret", [NEW, OLD], ids=["new", "old"])
async def test_rotation_the_server_knows_new_and_old_and_the_client_signs_with_either(
    client_secret,
):
    server = Server(url="")
    runner, server.url = await _start(signed_app(server, secrets=[NEW, OLD]))
    try:
        out = await call(server.url, signing_secrets=[client_secret])
    finally:
        await runner.cleanup()
    assert out is not None and out.entities["verified"] == "yes"


async def test_the_server_reads_its_secrets_from_the_environment(monkeypatch):
    monkeypatch.setenv("HOOKS_SECRET_A", NEW)
    monkeypatch.setenv("HOOKS_SECRET_B", OLD)
    server = Server(url="")
    runner, server.url = await _start(
        signed_app(server, secret_env=["HOOKS_SECRET_A", "HOOKS_SECRET_B"])
    )
    try:
        assert await call(server.url, signing_secrets=[OLD]) is not None
        with pytest.raises(HookTransportError, match="HTTP 401"):
            await call(server.url, signing_secrets=[CANARY])
    finally:
        await runner.cleanup()


def test_a_server_without_its_secret_does_not_start(monkeypatch):
    monkeypatch.delenv("HOOKS_SECRET_UNSET", raising=False)
    with pytest.raises(SignatureError, match="environment variable HOOKS_SECRET_UNSET is not set"):
        jsonrpc_app({POINT: lambda c: None}, secret_env="HOOKS_SECRET_UNSET")
    monkeypatch.setenv("HOOKS_SECRET_BAD", "hunter2-is-not-a-secret")
    with pytest.raises(SignatureError) as caught:
        jsonrpc_app({POINT: lambda c: None}, secret_env="HOOKS_SECRET_BAD")
    assert "HOOKS_SECRET_BAD" in str(caught.value) and "hunter2" not in str(caught.value)


def write(tmp_path: Path, url: str, secret_line: str, extra: str = "") -> Path:
    path = tmp_path / "hooks.toml"
    path.write_text(
        f'[[executor]]\nname = "policy"\npoints = "{POINT}"\nkind = "jsonrpc"\n'
        f'url = "{url}"\n{secret_line}\n{extra}'
    )
    return path


async def test_the_hooks_file_signs_with_every_named_secret_and_keeps_the_id_across_retries(
    tmp_path, knows_old
):
    path = write(tmp_path, knows_old.url, 'signing_secret = ["HOOKS_NEW", "HOOKS_OLD"]')
    manager = HookManager()
    load_hooks_config(path, environ={"HOOKS_NEW": NEW, "HOOKS_OLD": OLD}).apply(manager)
    try:
        first = await manager.run("tool.invoked", ctx("task/T/C/run/7:tool:1"))
        await manager.run("tool.invoked", ctx("task/T/C/run/7:tool:1", attempt=2))  # a retry
        await manager.run("tool.invoked", ctx("task/T/C/run/7:tool:2"))  # the next call
    finally:
        await manager.aclose()
    assert first.entities["verified"] == "yes"
    same = message_id("task/T/C/run/7:tool:1", POINT)
    assert knows_old.ids == [same, same, message_id("task/T/C/run/7:tool:2", POINT)]


DOCUMENTED_ID = re.compile(r"msg_[A-Za-z0-9_-]{24}")
"""docs/hooks/signing.md: ``msg_`` + 24 URL-safe base64 characters, whatever the call."""


async def test_a_shutdown_call_carries_a_webhook_id_of_the_documented_form():
    """Issue 28: a context without an idempotency key (the worker's shutdown) got ``msg_`` and
    32 hex digits; now a random id of the documented form, verified like any other."""
    ids: list[str] = []

    @web.middleware
    async def record(request: web.Request, handler):
        ids.append(request.headers["webhook-id"])
        return await handler(request)

    app = jsonrpc_app({"shutdown.pre": lambda ctx: None}, path="/hooks", secrets=OLD)
    app.middlewares.append(record)
    runner, url = await _start(app)
    executor = JsonRpcExecutor(url, point="shutdown.pre", signing_secrets=[OLD])
    try:
        for _ in range(2):
            assert await executor(ShutdownContext(reason="stop requested")) is None
    finally:
        await executor.aclose()
        await runner.cleanup()
    assert len(ids) == 2 and ids[0] != ids[1]  # one random id per call, each verified
    assert all(DOCUMENTED_ID.fullmatch(i) for i in ids), ids
    assert DOCUMENTED_ID.fullmatch(message_id("task/T/C/run/7:tool:1", POINT))


@pytest.mark.parametrize(
    ("line", "environ", "expected"),
    [
        (f'signing_secret = "{OLD}"', {}, "field 'signing_secret': must name environment"),
        ('signing_secret = "hooks_secret"', {}, "field 'signing_secret': must name environment"),
        ("signing_secret = []", {}, "field 'signing_secret': names no environment variable"),
        (
            'signing_secret = "HOOKS_UNSET"',
            {},
            "field 'signing_secret': environment variable HOOKS_UNSET is not set",
        ),
        (
            'signing_secret = ["HOOKS_OK", "HOOKS_WEAK"]',
            {"HOOKS_OK": OLD, "HOOKS_WEAK": "abc"},
            "field 'signing_secret': HOOKS_WEAK: expected 'whsec_' followed by the base64",
        ),
    ],
    ids=["literal-secret", "lower-case", "empty", "unset", "not-a-secret"],
)
def test_the_hooks_file_refuses_bad_signing_settings_naming_line_entry_and_field(
    tmp_path, line, environ, expected
):
    path = write(tmp_path, "http://127.0.0.1:9/hooks", line)
    with pytest.raises(HookConfigError) as caught:
        load_hooks_config(path, environ=environ)
    text = str(caught.value)
    assert "line 1: executor[0] ('policy')" in text and expected in text


def test_the_literal_secret_itself_is_not_echoed_by_the_refusal(tmp_path):
    path = write(tmp_path, "http://127.0.0.1:9/hooks", f'signing_secret = "{CANARY}"')
    with pytest.raises(HookConfigError) as caught:
        load_hooks_config(path, environ={})
    assert CANARY.removeprefix("whsec_") not in str(caught.value)


def test_only_jsonrpc_executors_sign(tmp_path):
    path = tmp_path / "hooks.toml"
    path.write_text(
        f'[[executor]]\npoints = "{POINT}"\nkind = "mcp"\n'
        'command = ["python", "x.py"]\nsigning_secret = "HOOKS_S"\n'
    )
    with pytest.raises(HookConfigError, match="signing_secret applies to jsonrpc executors only"):
        load_hooks_config(path, environ={"HOOKS_S": OLD})


async def test_the_secret_never_reaches_an_error_a_log_or_the_audit(tmp_path, caplog):
    """Canary: a hostile server echoes the secret back in its error page."""

    async def leak(request: web.Request) -> web.Response:
        return web.Response(status=500, text=f"bad key {CANARY} / {CANARY[6:]}")

    app = web.Application()
    app.router.add_post("/hooks", leak)
    runner, url = await _start(app)
    path = write(tmp_path, url, 'signing_secret = "HOOKS_CANARY"')
    caplog.set_level(logging.DEBUG)
    manager = HookManager()
    try:
        load_hooks_config(path, environ={"HOOKS_CANARY": CANARY}).apply(manager)
        with pytest.raises(HookTransportError) as caught:
            await manager.run("tool.invoked", ctx())
        ignoring = write(tmp_path, url, 'signing_secret = "HOOKS_CANARY"', 'on_failure = "ignore"')
        quiet = HookManager()
        load_hooks_config(ignoring, environ={"HOOKS_CANARY": CANARY}).apply(quiet)
        await quiet.run("tool.invoked", ctx())
        records = await quiet.audit.recent()
        await quiet.aclose()
    finally:
        await manager.aclose()
        await runner.cleanup()
    seen = [str(caught.value), repr(caught.value), caplog.text]
    cause: BaseException | None = caught.value
    while cause is not None:
        seen.append(str(cause))
        cause = cause.__cause__ or cause.__context__
    seen += [r.reason for r in records]
    assert records and "HTTP 500" in records[-1].reason
    assert "HTTP 500" in seen[0]
    for text in seen:
        assert CANARY[6:] not in text and CANARY[6:20] not in text


async def test_a_reload_starts_signing_with_the_secrets_the_new_file_names(tmp_path, monkeypatch):
    """Rotation by SIGHUP: the variables are in the worker's environment from its start."""
    monkeypatch.setenv("HOOKS_ROTATE_OLD", OLD)
    monkeypatch.setenv("HOOKS_ROTATE_NEW", NEW)
    server = Server(url="")
    runner, server.url = await _start(signed_app(server, secrets=[NEW]))
    path = write(tmp_path, server.url, 'signing_secret = "HOOKS_ROTATE_OLD"')
    manager = HookManager()
    config = load_hooks_config(path)
    reload = HooksReload(
        manager, path, config, config.apply(manager), grace_seconds=1.0, worker="test pid 1"
    )
    try:
        with pytest.raises(HookTransportError, match="signature mismatch"):
            await manager.run("tool.invoked", ctx())
        write(tmp_path, server.url, 'signing_secret = ["HOOKS_ROTATE_NEW", "HOOKS_ROTATE_OLD"]')
        outcome = await reload.reload(trigger="SIGHUP")
        assert outcome.applied, outcome.problems
        out = await manager.run("tool.invoked", ctx())
    finally:
        await manager.aclose()
        await runner.cleanup()
    assert out.entities["verified"] == "yes"
