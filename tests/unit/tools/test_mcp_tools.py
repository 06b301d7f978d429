"""MCP tools against a real MCP server process (tests/support/mcp_tool_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.domain import ToolCall
from harness.tools import ToolRegistry, ToolUnavailable
from harness.tools.mcp import McpToolServer

SERVER = [sys.executable, str(Path(__file__).parents[2] / "support" / "mcp_tool_server.py")]


@pytest.fixture(scope="module")
async def server():
    server = McpToolServer("testsrv", SERVER, timeout=5, approval=["shout"])
    yield server
    await server.aclose()


@pytest.fixture(scope="module")
async def registry(server) -> ToolRegistry:
    return ToolRegistry(await server.tools())


async def test_listed_tools_become_prefixed_specs(registry):
    assert set(registry.names) == {
        "testsrv__add",
        "testsrv__shout",
        "testsrv__fail",
        "testsrv__pid",
        "testsrv__sleep",
    }
    (add,) = registry.specs(["testsrv__add"])
    assert add.description == "Add two integers."
    assert add.parameters["properties"].keys() == {"a", "b"}
    assert registry.get("testsrv__shout").requires_approval
    assert not registry.get("testsrv__add").requires_approval


async def test_calls_return_the_servers_results(registry):
    add = await registry.invoke(ToolCall(id="1", name="testsrv__add", arguments={"a": 2, "b": 40}))
    assert (add.content, add.is_error) == ("42", False)
    shout = await registry.invoke(ToolCall(id="2", name="testsrv__shout", arguments={"text": "hi"}))
    assert shout.content == "HI!"


async def test_a_failing_tool_is_an_error_result_for_the_model(registry):
    result = await registry.invoke(
        ToolCall(id="3", name="testsrv__fail", arguments={"reason": "disk full"})
    )
    assert result.is_error
    assert "disk full" in result.content


async def test_one_server_process_serves_every_call(registry):
    pids = {
        (await registry.invoke(ToolCall(id=str(i), name="testsrv__pid"))).content for i in range(3)
    }
    assert len(pids) == 1 and pids.pop().isdigit()


async def test_a_slow_tool_is_unavailable_not_a_model_error():
    server = McpToolServer("slowsrv", SERVER, timeout=0.5)
    try:
        registry = ToolRegistry(await server.tools())
        with pytest.raises(ToolUnavailable, match=r"no answer within 0\.5s"):
            await registry.invoke(
                ToolCall(id="s", name="slowsrv__sleep", arguments={"seconds": 1.5})
            )
    finally:
        await server.aclose()


async def test_a_server_that_cannot_start_is_unavailable():
    server = McpToolServer("gone", [sys.executable, "-c", "raise SystemExit(3)"], timeout=3)
    try:
        with pytest.raises(ToolUnavailable):
            await server.tools()
    finally:
        await server.aclose()
