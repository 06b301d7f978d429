"""The SQL decision store (issue 15, point 7), on SQLite and PostgreSQL: expiry, cleanup,
replacement, a damaged or unreachable database as a miss, and two hosts sharing decisions."""

from __future__ import annotations

from pathlib import Path

import pytest
from aiohttp import web
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import create_async_engine

from harness.domain import TaskRef
from harness.hook_server import jsonrpc_app
from harness.hooks import HookManager, RecordedDecision, load_hooks_config
from harness.hooks.contexts import PersistenceWriteContext
from harness.storage import Database, open_database
from harness.storage.decisions import PURGE_EVERY_SECONDS, SqlDecisionStore
from harness.storage.schema import hook_decision

VETO = RecordedDecision(kind="abort", reason="no", refusal=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def rows(database: Database) -> int:
    async with database.transaction() as connection:
        return int(await connection.scalar(select(func.count()).select_from(hook_decision)))


async def test_a_decision_is_read_back_until_it_expires(database: Database) -> None:
    clock = Clock()
    store = SqlDecisionStore(database, clock=clock)
    assert await store.get("k1") is None
    await store.put("k1", VETO, 10)
    assert await store.get("k1") == VETO
    clock.now += 9.99
    assert await store.get("k1") == VETO
    clock.now += 0.02
    assert await store.get("k1") is None


async def test_a_later_put_replaces_the_decision_and_its_expiry(database: Database) -> None:
    clock = Clock()
    store = SqlDecisionStore(database, clock=clock)
    await store.put("k1", VETO, 1)
    clock.now += 5  # expired, still in the table
    await store.put("k1", RecordedDecision(kind="pass"), 60)
    assert await store.get("k1") == RecordedDecision(kind="pass")
    assert await rows(database) == 1


async def test_expired_rows_are_cleaned_up(database: Database) -> None:
    clock = Clock()
    store = SqlDecisionStore(database, clock=clock)
    await store.put("old", VETO, 1)
    await store.put("young", VETO, 3600)
    clock.now += 2
    assert await store.purge() == 1 and await rows(database) == 1
    await store.put("old2", VETO, 1)
    clock.now += PURGE_EVERY_SECONDS / 2
    await store.put("k3", VETO, 3600)  # too soon to clean again: old2 stays a row
    assert await rows(database) == 3
    clock.now += PURGE_EVERY_SECONDS
    await store.put("k4", VETO, 3600)  # the next put after a while deletes what expired
    assert await rows(database) == 3 and await store.get("old2") is None


async def test_a_damaged_row_is_a_miss(database: Database) -> None:
    store = SqlDecisionStore(database)
    await store.put("k1", VETO, 60)
    async with database.transaction() as connection:
        await connection.execute(hook_decision.update().values(decision='{"kind": "maybe"}'))
    assert await store.get("k1") is None


async def test_a_database_that_fails_is_a_miss_never_an_error(caplog) -> None:
    unmigrated = Database(create_async_engine("sqlite+aiosqlite://"))  # no hook_decision table
    try:
        store = SqlDecisionStore(unmigrated)
        await store.put("k1", VETO, 60)
        assert await store.get("k1") is None
    finally:
        await unmigrated.aclose()
    assert "pure decision not recorded" in caplog.text and "calling the executor" in caplog.text


def context(attempt: int) -> PersistenceWriteContext:
    return PersistenceWriteContext(
        task=TaskRef(task_id="task-1"),
        correlation_id="corr-1",
        idempotency_key="wf/run/7",
        key="task-1/transcript",
        content="write me",
        attempt=attempt,
    )


async def test_two_hosts_on_one_database_reuse_each_others_decisions(
    database: Database, tmp_path: Path
) -> None:
    requests: list[int] = []

    async def policy(ctx: PersistenceWriteContext):
        requests.append(ctx.attempt)
        return ctx.model_copy(update={"content": ctx.content + " (checked)"})

    runner = web.AppRunner(jsonrpc_app({"persistence.write.pre": policy}))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    config = tmp_path / "hooks.toml"
    config.write_text(
        f'[[executor]]\nname = "policy"\nkind = "jsonrpc"\n'
        f'points = "persistence.write.pre"\nurl = "http://127.0.0.1:{port}/"\n'
        "pure = true\n"
    )
    other = await open_database(database.engine.url)  # the second host's own pool
    hosts = []
    try:
        for db in (database, other):
            manager = HookManager()
            load_hooks_config(config).apply(manager, decisions=SqlDecisionStore(db))
            hosts.append(manager)
        first = await hosts[0].run("persistence.write", context(attempt=1))
        second = await hosts[1].run("persistence.write", context(attempt=2))
        assert requests == [1]
        assert first.content == second.content == "write me (checked)" and second.attempt == 2
        assert [r.kind for r in hosts[1].audit.last()] == ["reused_decision"]
    finally:
        for manager in hosts:
            await manager.aclose()
        await other.aclose()
        await runner.cleanup()


@pytest.mark.parametrize("ttl", [0.5, 3600.0])
async def test_the_expiry_is_the_put_time_plus_the_ttl(database: Database, ttl: float) -> None:
    clock = Clock()
    await SqlDecisionStore(database, clock=clock).put("k", VETO, ttl)
    async with database.transaction() as connection:
        expires = await connection.scalar(select(hook_decision.c.expires_at))
    assert expires == pytest.approx(clock.now + ttl)
