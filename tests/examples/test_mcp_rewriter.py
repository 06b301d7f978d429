"""examples/mcp_rewriter.py does what its header says, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest

from harness.hooks import McpExecutor
from harness.hooks.contexts import ToolInvokedContext

from .conftest import EXAMPLES, ROOT, call, free_port


@pytest.fixture(scope="module")
async def http_url() -> AsyncIterator[str]:
    """``python examples/mcp_rewriter.py --http --port N``, once it answers HTTP there.

    A port found free may be taken by another server before the example binds it (the
    example then exits): the example is only ready when it is alive and the server that
    answers is its own (uvicorn, which no other server of the suite is); else a new port.
    """
    for _ in range(3):
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
            if await _serving(proc, port):
                yield f"http://127.0.0.1:{port}/mcp"
                return
        finally:
            if proc.returncode is None:
                proc.terminate()
            await proc.wait()
    raise AssertionError("the MCP example did not start on any of three free ports")


async def _serving(proc: asyncio.subprocess.Process, port: int) -> bool:
    """Whether the example answers on ``port`` (``False``: it exited, the port was taken)."""
    async with aiohttp.ClientSession() as http, asyncio.timeout(20):
        while proc.returncode is None:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(f"http://127.0.0.1:{port}/mcp") as answer:
                    if answer.headers.get("server") == "uvicorn":
                        return True
            await asyncio.sleep(0.05)
    return False


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
