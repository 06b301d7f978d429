"""The audit store's contract on SQLite and PostgreSQL (issue 13): the sink never blocks, the
table keeps order and filters by task, every host reads every host's records, and closing
writes what is still queued."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from harness.hooks import AuditRecord, HookManager, Redactor
from harness.storage import Database, open_database
from harness.storage.audit import SqlAuditStore, read_audit, recent_audit


def record(n: int, task_id: str = "T1") -> AuditRecord:
    return AuditRecord(
        at=1000.0 + n,
        kind="refusal",
        point="tool.invoked.pre",
        executor=f"e{n}",
        reason=f"reason {n}",
        correlation_id=f"c{n}",
        task_id=task_id,
    )


@pytest.fixture
async def sink(database: Database) -> AsyncIterator[SqlAuditStore]:
    sink = SqlAuditStore(database)
    yield sink
    await sink.aclose()


@pytest.fixture
async def other_host(database: Database) -> AsyncIterator[Database]:
    second = await open_database(database.engine.url)
    try:
        yield second
    finally:
        await second.aclose()


async def test_write_only_queues_and_the_writer_task_stores_in_order(sink, database) -> None:
    for n in range(5):
        sink.write(record(n))
    assert sink.pending == 5  # nothing written on the caller's stack
    async with asyncio.timeout(10):
        while sink.pending:
            await asyncio.sleep(0.01)
    assert await read_audit(database, 10) == [record(n) for n in range(5)]


async def test_last_is_oldest_first_and_filters_by_task(sink) -> None:
    for n in range(6):
        sink.write(record(n, task_id="T1" if n % 2 else "T2"))
    assert await sink.last(2) == [record(4, "T2"), record(5)]
    assert await sink.last(10, task_id="T1") == [record(1), record(3), record(5)]
    assert await sink.last(10, task_id="nobody") == []
    assert await sink.last(0) == []


async def test_every_host_reads_every_hosts_records(database, other_host) -> None:
    here, there = HookManager(redactor=Redactor(secrets=["s3cret"])), HookManager()
    here.audit.sinks.append(SqlAuditStore(database))
    there.audit.sinks.append(SqlAuditStore(other_host))
    here.audit.record(
        "abort",
        point="tool.invoked.pre",
        executor="policy",
        reason="token s3cret refused",
        ctx=None,
    )
    await here.aclose()  # writes its queue
    there.audit.record(
        "ignored_failure", point="llm.called.post", executor="x", reason="down", ctx=None
    )
    await there.aclose()
    for manager in (here, there):
        kinds = [(r.kind, r.reason) for r in await manager.audit.recent(5)]
        assert kinds == [("abort", "token [REDACTED] refused"), ("ignored_failure", "down")]


async def test_closing_writes_what_is_queued(database, other_host) -> None:
    sink = SqlAuditStore(database, batch=7)
    for n in range(50):
        sink.write(record(n))
    await sink.aclose()
    assert sink.pending == 0
    assert await read_audit(other_host, 100) == [record(n) for n in range(50)]


def test_records_written_outside_a_loop_wait_for_close(database_engine, request, tmp_path) -> None:
    """``abandon`` may audit from a synchronous path with no running loop."""
    from harness.storage import database_url
    from tests.conftest import database_url_for

    url = database_url(database_url_for(database_engine, request, tmp_path), tmp_path / "x")

    async def open_() -> Database:
        db = await open_database(url)
        await db.engine.dispose()  # its connections belong to this loop; the next run opens anew
        return db

    async def close(db: Database, sink: SqlAuditStore) -> list[AuditRecord]:
        await sink.aclose()
        found = await read_audit(db, 10)
        await db.aclose()
        return found

    db = asyncio.run(open_())
    sink = SqlAuditStore(db)
    sink.write(record(1))
    sink.write(record(2))
    assert sink.pending == 2
    assert asyncio.run(close(db, sink)) == [record(1), record(2)]


async def test_a_full_queue_drops_counts_and_logs_once_without_blocking(sink, caplog) -> None:
    small = SqlAuditStore(sink.database, capacity=3)
    with caplog.at_level(logging.WARNING, logger="harness.storage.audit"):
        for n in range(6):
            small.write(record(n))
    assert (small.pending, small.dropped) == (3, 3)
    assert len([r for r in caplog.records if "audit queue full" in r.message]) == 1
    await small.aclose()
    assert await read_audit(sink.database, 10) == [record(n) for n in range(3)]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_database_that_is_down_keeps_records_queued_and_close_says_so(caplog) -> None:
    down = Database(create_async_engine(f"postgresql+asyncpg://h:pw@127.0.0.1:{closed_port()}/x"))
    sink = SqlAuditStore(down, close_seconds=0.5)
    try:
        sink.write(record(1))  # returns at once: the writer task meets the outage
        await asyncio.sleep(0.3)
        assert sink.pending == 1
        with caplog.at_level(logging.WARNING, logger="harness.storage.audit"):
            await sink.aclose()
    finally:
        await down.aclose()
    assert sink.pending == 1
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "1 records not written at close" in messages and "pw" not in messages


async def test_the_cli_reader_opens_without_migrating(database, sink) -> None:
    sink.write(record(1, task_id="T9"))
    await sink.flush()
    assert await recent_audit(database.engine.url, 5, task_id="T9") == [record(1, "T9")]


async def test_closing_the_manager_writes_its_audit_queue(database, other_host) -> None:
    """What the worker's shutdown runs (serve closes the manager, then the database)."""
    manager = HookManager()
    sink = SqlAuditStore(database)
    manager.audit.sinks.append(sink)
    for n in range(3):
        manager.audit.record("abort", point="shutdown.pre", executor=f"e{n}", reason="r", ctx=None)
    assert sink.pending == 3
    await manager.aclose()
    assert [r.executor for r in await read_audit(other_host, 10)] == ["e0", "e1", "e2"]
