"""Executor stats count the calls that happened (issue 28): an executor its ``match`` skips is
not called, so it is no call in ``python -m harness.hooks stats``.

A real aiohttp JSON-RPC executor records every request it gets and how long it slept on it;
behind a match that skips half the operations, the figures the CLI prints from the database
are compared with what the server actually received.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from harness.domain import TaskRef, ToolCall, ToolResult
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import HookManager, load_hooks_config
from harness.hooks.__main__ import main
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.decisions import DECISIONS
from harness.plugins import register_stats
from harness.storage import Database, database_url, open_database

# (tool, ms the server sleeps): the match lets "slow" and "quick" through, skips the rest.
RUNS = [
    ("slow", 300),
    ("shell", 0),
    ("slow", 600),
    ("search", 0),
    ("slow", 900),
    ("shell", 0),
    ("quick", 20),
    ("search", 0),
]


@dataclass
class RecordingServer:
    """What the executor's server received: each call's tool and the milliseconds it took."""

    url: str = ""
    calls: list[tuple[str, float]] = field(default_factory=list)

    def percentile(self, q: float) -> float:
        """The rule ``stats`` uses (the call of rank ceil(q * n)), on the server's own times."""
        times = sorted(ms for _, ms in self.calls)
        return times[max(1, math.ceil(q * len(times))) - 1]


@pytest.fixture
async def server() -> AsyncIterator[RecordingServer]:
    recording = RecordingServer()

    async def check(ctx: ToolInvokedContext) -> None:
        start = time.perf_counter()
        await asyncio.sleep(ctx.call.arguments["sleep_ms"] / 1000)
        recording.calls.append((ctx.call.name, (time.perf_counter() - start) * 1000))

    runner = web.AppRunner(jsonrpc_app({"tool.invoked.pre": check}, path="/hooks"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    recording.url = f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"
    yield recording
    await runner.cleanup()


@pytest.fixture
async def database(tmp_path) -> AsyncIterator[Database]:
    db = await open_database(database_url(f"sqlite:///{tmp_path / 'stats.sqlite3'}", tmp_path))
    try:
        yield db
    finally:
        await db.aclose()


async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
    return ctx.model_copy(update={"result": ToolResult(content="ok")})


def ctx(n: int, tool: str, sleep_ms: int) -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1"),
        correlation_id=f"c{n}",
        idempotency_key=f"T1:{n}",
        call=ToolCall(id=f"call-{n}", name=tool, arguments={"sleep_ms": sleep_ms}),
    )


async def test_stats_count_and_time_only_the_calls_the_server_received(
    tmp_path, server, database, capsys
):
    config = tmp_path / "hooks.toml"
    config.write_text(
        "[observability]\nexecutor_stats = true\n\n"
        '[[executor]]\nname = "recording-policy"\nkind = "jsonrpc"\n'
        f'points = "tool.invoked.pre"\nurl = "{server.url}"\ntimeout = 20\n'
        'match = { tool = "slow|quick" }\n'
    )
    manager = HookManager()
    load_hooks_config(config).apply(manager)
    manager.register("tool.invoked.in", body)
    register_stats(manager, database, None)  # what the worker does for executor_stats = true
    for n, (tool, sleep_ms) in enumerate(RUNS):
        await manager.run("tool.invoked", ctx(n, tool, sleep_ms))
    await manager.aclose()  # flushes the stats to the database

    url = database.engine.url.render_as_string(hide_password=False)
    assert await asyncio.to_thread(main, ["stats", "--since", "1h", "--database", url]) == 0
    lines = capsys.readouterr().out.splitlines()
    [line] = [line for line in lines if " recording-policy " in line]
    cells = line.split()
    counts = dict(zip(DECISIONS, map(int, cells[4 : 4 + len(DECISIONS)]), strict=True))
    p50, p95, _, max_ms = map(float, cells[-4:])

    received = [tool for tool, _ in server.calls]
    assert sorted(received) == ["quick", "slow", "slow", "slow"]  # the match let these through
    assert int(cells[3]) == len(received) == 4  # calls: the skipped ones are not calls
    assert counts["pass"] == 4 and sum(counts.values()) == 4
    # Each call took at least what the server slept on it, and not much more (a histogram
    # bucket is within ~19 %; the rest is the loopback round trip on a loaded machine).
    for reported, q in ((p50, 0.5), (p95, 0.95), (max_ms, 1.0)):
        slept = server.percentile(q)
        assert slept <= reported <= slept * 1.2 + 500, (q, slept, reported)
