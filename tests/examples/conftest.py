"""The examples as a user starts them: each server is its own process, from examples/ as shipped."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.domain import ToolCall
from harness.hook_server.conformance import load_fixtures, run_fixtures
from harness.hooks.contexts import ToolInvokedContext

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def call(tool: str, **arguments: object) -> ToolInvokedContext:
    """A ``tool.invoked`` context of one call of ``tool``."""
    return ToolInvokedContext(
        correlation_id="corr-ex", call=ToolCall(id="c1", name=tool, arguments=arguments)
    )


@dataclass(frozen=True)
class Policy:
    """The running JSON-RPC policy example and the token it takes."""

    url: str
    token: str
    said: str


@pytest.fixture(scope="session")
async def policy() -> AsyncIterator[Policy]:
    """``POLICY_TOKEN=… python examples/jsonrpc_policy.py --port N``, until the session ends."""
    token = "policy-token-of-this-run"
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "jsonrpc_policy.py"),
        "--port",
        str(port),
        env={**os.environ, "POLICY_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    try:
        async with asyncio.timeout(20):
            while b"serving" not in (line := await proc.stdout.readline()):
                assert line, "the policy example exited before serving"
        yield Policy(url=f"http://127.0.0.1:{port}/hooks", token=token, said=line.decode().strip())
    finally:
        proc.terminate()
        await proc.wait()


NODE = shutil.which("node")
SECRET = "whsec_" + base64.b64encode(b"conformance-kit-test-secret-32b!").decode()
"""The secret the Node example verifies with (and the zoo's signed members)."""


async def started(*argv: str, said: bytes, env: dict[str, str] | None = None):
    """``argv`` as a process in the repository, once its output says ``said``."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert proc.stdout is not None
    async with asyncio.timeout(20):
        while said not in (line := await proc.stdout.readline()):
            assert line, f"{argv} exited before serving"
    return proc


async def stopped(proc: asyncio.subprocess.Process) -> None:
    proc.terminate()
    await proc.wait()


@pytest.fixture(scope="session")
async def node_policy() -> AsyncIterator[str]:
    """``node examples/node/policy.mjs --port N``, signatures required."""
    assert NODE, "node (v20) is on the project's machines; install it to run this test"
    port = free_port()
    proc = await started(
        NODE,
        str(EXAMPLES / "node" / "policy.mjs"),
        "--port",
        str(port),
        said=b"serving",
        env={"HOOK_SECRET": SECRET},
    )
    yield f"http://127.0.0.1:{port}/hooks"
    await stopped(proc)


async def failures(target) -> dict[str, str]:
    """Run every fixture for ``target`` (the signature ones when it signs): id -> problem."""
    fixtures = load_fixtures(target.transport, signed=target.signs)
    try:
        verdicts = await run_fixtures(target, fixtures)
    finally:
        await target.aclose()
    assert len(verdicts) == len(fixtures) > 40
    return {v.fixture.id: v.problem for v in verdicts if v.problem is not None}
