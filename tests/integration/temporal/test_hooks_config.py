"""Issue 6 in the worker: a configuration file alone adds remote and local executors.

The real worker entry (:func:`serve`, which builds its manager from ``Settings``) runs
against the real dev server. The file adds a JSON-RPC policy (a real aiohttp server in
this process), an MCP rewriter (a real server process) and a local body replacing the
default ``persistence.write`` body; a transcript message drives ``persistence.write``.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp import web

from harness.domain import ChannelMessage, TaskSpec
from harness.hook_server import jsonrpc_app
from harness.hooks import HookAbort, HookConfigError
from harness.hooks.contexts import PersistenceWriteContext
from harness.storage.audit import recent_audit
from harness.temporal.client import HarnessClient
from harness.temporal.worker import serve

from .conftest import worker_env

HERE = Path(__file__).resolve().parent


@pytest.fixture
async def policy_server():
    """A JSON-RPC policy vetoing writes that mention ``forbidden``; records what it saw."""
    seen: list[tuple[str, str]] = []

    async def veto_forbidden(ctx: PersistenceWriteContext):
        seen.append((ctx.key, ctx.content))
        if "forbidden" in ctx.content:
            raise HookAbort("forbidden plans are not written", refusal=True)
        return None

    runner = web.AppRunner(jsonrpc_app({"persistence.write.pre": veto_forbidden}))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/", seen
    await runner.cleanup()


def write_config(path: Path, url: str, record: Path) -> Path:
    # The MCP rewriter (priority 20) runs before the JSON-RPC policy (30): "secret-plan"
    # becomes "forbidden-plan" first, so the policy vetoes it only in that order.
    path.write_text(f"""
[[executor]]
name = "remote-policy"
kind = "jsonrpc"
points = "persistence.write.pre"
url = "{url}"
headers = {{ Authorization = "Bearer ${{HOOKS_TEST_TOKEN}}" }}
priority = 30

[[executor]]
name = "mcp-rewriter"
kind = "mcp"
points = ["persistence.write.pre"]
command = ["python", "{HERE / "config_hooks.py"}"]
timeout = 20
priority = 20

[[executor]]
name = "local-body"
kind = "local"
points = ["persistence.write.in"]
target = "tests.integration.temporal.config_hooks:make_body"
options = {{ record = "{record}" }}
priority = 900
""")
    return path


async def test_a_config_file_alone_adds_a_remote_veto_an_mcp_rewrite_and_a_local_body(
    client, settings, policy_server, tmp_path, monkeypatch
):
    url, seen = policy_server
    record = tmp_path / "bodies.jsonl"
    config = write_config(tmp_path / "hooks.toml", url, record)
    monkeypatch.setenv("HOOKS_TEST_TOKEN", "tok-not-in-file")
    configured = settings.model_copy(update={"hooks_config": config})
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(configured, stop, client=client))
    try:
        harness = HarnessClient(client, configured)
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"),
            team="T1",
            channel="C9",
            thread="9.0",
            correlation_id="corr-9",
        )
        ok = ChannelMessage(channel="C9", thread="9.0", user="U1", text="hello there", ts="9.1")
        assert await harness.send_message(ref.task_id, ok) == 1

        # The local body replaced the default one: it ran, and the store was not written.
        [body_saw] = [json.loads(line) for line in record.read_text().splitlines()]
        assert "hello there" in body_saw["content"]
        assert await recent_audit(configured.database) == []

        vetoed = ChannelMessage(
            channel="C9", thread="9.0", user="U1", text="the secret-plan", ts="9.2"
        )
        with pytest.raises(Exception, match="forbidden plans are not written"):
            await harness.send_message(ref.task_id, vetoed)
        # The policy saw the MCP rewrite (priority order); the body never ran for it.
        assert "forbidden-plan" in seen[-1][1] and "secret-plan" not in seen[-1][1]
        assert len(record.read_text().splitlines()) == 1
        assert len(await harness.transcript(ref.task_id)) == 1
    finally:
        stop.set()
        await worker

    [audit] = await recent_audit(configured.database)
    assert (audit.kind, audit.point) == ("refusal", "persistence.write.pre")
    assert audit.executor == "remote-policy"
    assert audit.task_id == ref.task_id and audit.reason == "forbidden plans are not written"


async def test_a_misconfigured_file_stops_the_worker_at_start_naming_the_problem(
    settings, tmp_path
):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        '[[executor]]\nkind = "local"\npoints = "tool.invokd.pre"\ntarget = "no_such_module:hook"\n'
    )
    with pytest.raises(HookConfigError, match=r"line 1: executor\[0\].*'tool.invokd.pre'"):
        await serve(settings.model_copy(update={"hooks_config": bad}), asyncio.Event())

    proc = subprocess.run(
        [sys.executable, "-m", "harness.worker"],
        env=worker_env(settings, HARNESS_HOOKS_CONFIG=str(bad)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "invalid hooks configuration" in proc.stderr and "tool.invokd.pre" in proc.stderr
