"""examples/jsonrpc_policy.py does what its header says, started as its header says."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import tomllib

import aiohttp
import pytest

from harness.domain import ToolCall, ToolResult
from harness.hooks import HookAbort, HookManager, HookTransportError, JsonRpcExecutor
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.wire import PARSE_ERROR

from .conftest import EXAMPLES, call


@pytest.fixture
async def guarded(policy):
    """A manager with the example at tool.invoked.pre, registered as the header shows."""
    manager = HookManager()
    ran: list[ToolCall] = []

    async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
        ran.append(ctx.call)
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    executor = JsonRpcExecutor(
        policy.url,
        point="tool.invoked.pre",
        name="example-policy",
        headers={"Authorization": f"Bearer {policy.token}"},
    )
    manager.register("tool.invoked.pre", executor)
    manager.register("tool.invoked.in", body)
    yield manager, ran
    await manager.aclose()


async def test_it_refuses_agent_writes_of_final_artefacts(guarded):
    manager, ran = guarded
    with pytest.raises(HookAbort) as info:
        await manager.run(
            "tool.invoked", call("write_artefact", name="final-report.md", content="done")
        )
    assert info.value.refusal is True and info.value.executor == "example-policy"
    assert "final-" in info.value.reason and "people" in info.value.reason
    assert ran == []  # the write never ran


async def test_it_lets_every_other_call_through_unchanged(guarded):
    manager, ran = guarded
    calls = [
        call("write_artefact", name="notes.md", content="x"),
        call("read_artefact", name="final-report.md"),
        call("calculator", expression="1+1"),
    ]
    for ctx in calls:
        out = await manager.run("tool.invoked", ctx)
        assert out.result == ToolResult(content="ok")
    assert ran == [ctx.call for ctx in calls]


async def test_a_request_without_the_token_is_refused(policy):
    async with aiohttp.ClientSession() as session:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            async with session.post(policy.url, data=b"{}", headers=headers) as response:
                assert response.status == 401
        # With the token even a bad body is answered in JSON-RPC, with HTTP 200.
        bearer = {"Authorization": f"Bearer {policy.token}"}
        async with session.post(policy.url, data=b"not json", headers=bearer) as response:
            assert response.status == 200
            assert (await response.json())["error"]["code"] == PARSE_ERROR
    tokenless = JsonRpcExecutor(policy.url, point="tool.invoked.pre")
    try:
        with pytest.raises(HookTransportError, match="401"):
            await tokenless(call("write_artefact", name="notes.md", content="x"))
    finally:
        await tokenless.aclose()


def test_without_policy_token_it_does_not_start():
    env = {k: v for k, v in os.environ.items() if k != "POLICY_TOKEN"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "jsonrpc_policy.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()]  # one line, no traceback
    assert proc.stderr.startswith("POLICY_TOKEN is not set")


def test_by_default_it_serves_where_hooks_toml_calls_it(policy):
    example = runpy.run_path(str(EXAMPLES / "jsonrpc_policy.py"))  # its constants, not main()
    [remote] = [
        e
        for e in tomllib.loads((EXAMPLES / "hooks.toml").read_text())["executor"]
        if e["kind"] == "jsonrpc"
    ]
    assert remote["url"] == f"http://127.0.0.1:{example['PORT']}{example['PATH']}"
    assert remote["headers"] == {"Authorization": "Bearer ${POLICY_TOKEN}"}
    assert policy.said == f"serving the policy at {policy.url}"  # what the header promises
