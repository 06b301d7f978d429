"""Executor stats through a real database, SQLite and PostgreSQL (issue 15, point 4): each worker
flushes its aggregate, two hosts write the same table, and ``python -m harness.hooks stats``
prints their merged figures from the rows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest

from harness.config import Settings
from harness.domain import TaskRef, ToolCall
from harness.hooks import HookManager, HookTransportError
from harness.hooks.__main__ import main
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.latency import LatencyAggregate, StatsRow, summarise
from harness.hooks.monitors.executor_stats import ExecutorStats, register_executor_stats
from harness.plugins import build_manager
from harness.storage import Database, open_database
from harness.storage.executor_stats import PRUNE_EVERY, SqlStatsStore, read_stats


def ctx(n: int = 0) -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1"),
        correlation_id=f"c{n}",
        idempotency_key=f"T1:{n}",
        call=ToolCall(id="1", name="search", arguments={}),
    )


async def fast(ctx):
    return None


async def slow(ctx):
    await asyncio.sleep(0.02)
    return ctx.model_copy(update={"call": ctx.call.model_copy(update={"name": "web"})})


def watched(database: Database, **options) -> tuple[HookManager, ExecutorStats]:
    manager = HookManager()
    manager.register("tool.invoked.pre", fast)
    manager.register("tool.invoked.post", slow)
    register_executor_stats(manager, SqlStatsStore(database), **options)
    [stats] = manager.monitors("executor")
    return manager, stats  # type: ignore[return-value]


@pytest.fixture
async def other_host(database: Database) -> AsyncIterator[Database]:
    second = await open_database(database.engine.url)
    try:
        yield second
    finally:
        await second.aclose()


async def stats_cli(*args: str) -> int:
    """``python -m harness.hooks stats ...`` (it runs its own event loop: off this one)."""
    return await asyncio.to_thread(main, ["stats", *args])


def url_of(database: Database) -> str:
    return database.engine.url.render_as_string(hide_password=False)


async def test_closing_flushes_one_row_per_executor_with_counts_and_latency(database) -> None:
    manager, _ = watched(database)
    for n in range(10):
        await manager.run("tool.invoked", ctx(n))
    assert await read_stats(database, 0) == []  # nothing written on the call path
    await manager.aclose()
    rows = await read_stats(database, 0)
    assert {r.executor.rsplit(".", 1)[-1] for r in rows} == {"fast", "slow"}
    slowest, fastest = summarise(rows)
    assert slowest.key[0] == "tool.invoked.post" and slowest.count("rewrite") == 10
    assert fastest.count("pass") == 10 and fastest.aggregate.calls == 10
    assert slowest.aggregate.percentile(0.5) >= 20 > fastest.aggregate.percentile(0.99)
    assert slowest.aggregate.max_ms >= 20 and slowest.key[2] == "local"


async def test_the_aggregate_is_flushed_periodically_while_the_worker_runs(database) -> None:
    manager, _ = watched(database, interval=0.05)
    try:
        await manager.run("tool.invoked", ctx())
        async with asyncio.timeout(10):
            while len(await read_stats(database, 0)) < 2:
                await asyncio.sleep(0.02)
        await manager.run("tool.invoked", ctx(1))
        async with asyncio.timeout(10):
            while len(await read_stats(database, 0)) < 4:  # a new window, its own rows
                await asyncio.sleep(0.02)
    finally:
        await manager.aclose()
    [slowest, fastest] = summarise(await read_stats(database, 0))
    assert slowest.aggregate.calls == fastest.aggregate.calls == 2


async def test_two_hosts_write_the_same_table_and_the_cli_prints_their_merged_figures(
    database, other_host, capsys
) -> None:
    first, _ = watched(database)
    second, _ = watched(other_host)
    for n in range(30):
        await first.run("tool.invoked", ctx(n))
    for n in range(10):
        await second.run("tool.invoked", ctx(n))
    await first.aclose()
    await second.aclose()

    [slowest, fastest] = summarise(await read_stats(database, 0))
    assert len(slowest.workers) == 2 and slowest.aggregate.calls == 40
    assert fastest.count("pass") == 40

    assert await stats_cli("--since", "1h", "--database", url_of(database)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# executor stats since ") and "2 worker(s)" in out[0]
    header, *lines = out[1:]
    assert header.split()[:4] == ["point", "executor", "kind", "calls"]
    assert "failed-open" in header
    # the quantiles README promises ("p50/p95/p99 latency"), then the maximum (issue 26)
    assert header.split()[-8:] == ["p50", "ms", "p95", "ms", "p99", "ms", "max", "ms"]
    assert len(lines) == 2
    assert lines[0].startswith("tool.invoked.post") and lines[1].startswith("tool.invoked.pre")
    cells = lines[0].split()
    assert cells[2] == "local" and cells[3] == "40"
    assert float(cells[-2]) >= 20  # p99 of the slow executor, in ms


async def test_the_cli_reads_only_the_window_asked_for_and_says_when_there_is_none(
    database, capsys
) -> None:
    store = SqlStatsStore(database)
    aggregate = LatencyAggregate()
    aggregate.add(0, 3.0)
    old = aggregate.row(
        worker="w", at=time.time() - 7200, since=0, key=("tool.invoked.pre", "old", "mcp")
    )
    await store.write_stats([old])
    assert await stats_cli("--since", "1h", "--database", url_of(database)) == 0
    assert "no executor stats since" in capsys.readouterr().out
    assert await stats_cli("--since", "3h", "--database", url_of(database)) == 0
    assert "old" in capsys.readouterr().out


def test_a_bad_since_is_a_usage_error(capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["stats", "--since", "an hour"])
    assert exited.value.code == 2
    assert "give a number and s, m, h or d" in capsys.readouterr().err


async def test_a_flush_the_database_refuses_is_kept_for_the_next(database) -> None:
    class Flaky:
        """The real store behind a database that is down for the first flush."""

        def __init__(self) -> None:
            self.store = SqlStatsStore(database)
            self.down = True

        async def write_stats(self, rows: list[StatsRow]) -> None:
            if self.down:
                self.down = False
                raise HookTransportError(point="-", endpoint="db", cause="down")
            await self.store.write_stats(rows)

    stats = ExecutorStats(Flaky())
    manager = HookManager()
    manager.register("tool.invoked.pre", fast)
    manager.add_monitor(stats, around="executor")
    await manager.run("tool.invoked", ctx())
    with pytest.raises(HookTransportError):
        await stats.flush()
    await manager.run("tool.invoked", ctx(1))
    await manager.aclose()
    [summary] = summarise(await read_stats(database, 0))
    assert summary.aggregate.calls == 2


async def test_rows_past_the_retention_are_deleted_by_the_writers(database) -> None:
    now = [1_000_000.0]
    store = SqlStatsStore(database, retention=3600, clock=lambda: now[0])
    aggregate = LatencyAggregate()
    aggregate.add(0, 1.0)

    def row(at: float) -> StatsRow:
        return aggregate.row(worker="w", at=at, since=at - 10, key=("a.pre", "x", "local"))

    await store.write_stats([row(now[0] - 7200), row(now[0])])
    assert len(await read_stats(database, 0)) == 1  # the first write prunes already
    await store.write_stats([row(now[0] - 7200)])
    assert len(await read_stats(database, 0)) == 2  # and not again within the hour
    now[0] += PRUNE_EVERY
    await store.write_stats([row(now[0])])
    assert [r.at for r in await read_stats(database, 0)] == [1_000_000.0, now[0]]


async def test_the_hooks_file_turns_stats_on_in_the_worker_s_manager(database, tmp_path) -> None:
    config = tmp_path / "hooks.toml"
    config.write_text("[observability]\nexecutor_stats = true\n")
    settings = Settings(_env_file=None, hooks_config=config)  # type: ignore[call-arg]
    manager = build_manager(settings, database)
    assert [type(m).__name__ for m in manager.monitors("executor")] == ["ExecutorStats"]
    await manager.aclose()
    plain = build_manager(Settings(_env_file=None), database)  # type: ignore[call-arg]
    assert plain.monitors("executor") == ()
    await plain.aclose()
