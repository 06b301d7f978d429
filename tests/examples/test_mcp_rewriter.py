"""examples/mcp_rewriter.py does what its header says, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

import pytest

from harness.hooks import McpExecutor
from harness.hooks.contexts import ToolInvokedContext

from .conftest import EXAMPLES, ROOT, call, free_port


@pytest.fixture(scope="module")
async def http_url() -> AsyncIterator[str]:
    """``python examples/mcp_rewriter.py --http --port N``, once it listens."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "mcp_rewriter.py"),
        "--http",
        "--port",
        str(port),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        async with asyncio.timeout(20):
            while True:
                assert proc.returncode is None, "the MCP example exited at start"
                with contextlib.suppress(OSError):
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                    writer.close()
                    await writer.wait_closed()
                    break
                await asyncio.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        await proc.wait()


async def check_rewrites(rewriter: McpExecutor) -> None:
    out = await rewriter(call("write_artefact", name="Notes/Plan v2.md", content="x"))
    assert isinstance(out, ToolInvokedContext)
    assert out.call.arguments == {"name": "plan-v2.md", "content": "x"}
    out = await rewriter(call("read_artefact", name="../../etc/passwd"))
    assert isinstance(out, ToolInvokedContext) and out.call.arguments == {"name": "passwd"}
    assert await rewriter(call("read_artefact", name="plan-v2.md")) is None  # plain already
    assert await rewriter(call("read_artefact", name="..")) is None  # nothing left: the tool says
    assert await rewriter(call("echo", name="Notes/Plan v2.md")) is None  # not an artefact tool


async def test_over_stdio_as_the_header_registers_it():
    rewriter = McpExecutor(
        [sys.executable, "examples/mcp_rewriter.py"], point="tool.invoked.pre", cwd=ROOT
    )
    try:
        await check_rewrites(rewriter)
    finally:
        await rewriter.aclose()


async def test_over_streamable_http(http_url):
    rewriter = McpExecutor(http_url, point="tool.invoked.pre")
    try:
        await check_rewrites(rewriter)
    finally:
        await rewriter.aclose()
