"""The examples as a user starts them: each server is its own process, from examples/ as shipped."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.domain import ToolCall
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
