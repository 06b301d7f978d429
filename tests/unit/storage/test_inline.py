"""SQLite transactions in the loop's thread (harness/storage/inline.py, Database.run), on a real
file: inline while the file is free, on the async engine (waiting) while another connection
holds its lock, and the WAL checkpointed off the loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from harness.storage import Database, TranscriptStore, database_url, open_database
from harness.storage.inline import CHECKPOINT_EVERY


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    db = await open_database(database_url("", tmp_path / "h.sqlite3"))
    try:
        yield db
    finally:
        await db.aclose()


@pytest.fixture
async def other_process(database: Database) -> AsyncIterator[Database]:
    """Another process's database on the same file: its own engine, pool and lock."""
    db = await open_database(database.engine.url, migrate=False)
    try:
        yield db
    finally:
        await db.aclose()


def inserts(engine: Engine) -> list[str]:
    seen: list[str] = []

    def add(_conn: object, _cursor: object, sql: str, *_: object) -> None:
        if sql.lstrip().upper().startswith("INSERT"):
            seen.append(sql)

    event.listen(engine, "before_cursor_execute", add)
    return seen


async def test_a_write_runs_inline_while_the_file_is_free(database: Database) -> None:
    assert database.inline is not None
    inline, pooled = inserts(database.inline.engine), inserts(database.engine.sync_engine)
    entry = await TranscriptStore(database).append("t", "hello", idempotency_key="m/1")
    assert entry.version == 1 and len(inline) == 1 and pooled == []


async def test_a_write_waits_for_a_lock_held_elsewhere_and_lands_once(
    database: Database, other_process: Database
) -> None:
    assert database.inline is not None
    store = TranscriptStore(database)
    inline, pooled = inserts(database.inline.engine), inserts(database.engine.sync_engine)
    async with other_process.transaction():  # BEGIN IMMEDIATE: the write lock, held
        waiting = asyncio.create_task(store.append("t", "hello", idempotency_key="m/1"))
        await asyncio.sleep(0.3)
        assert not waiting.done()  # queued on the async engine, not failed
        # A reader does not wait: it reads its snapshot without the write lock.
        assert await asyncio.wait_for(store.span("t"), 1) == ((), 0)
    entry = await asyncio.wait_for(waiting, 10)
    assert entry.version == 1 and len(pooled) == 1
    assert inline == []  # the inline try failed at BEGIN, before its insert
    again = await store.append("t", "retried", idempotency_key="m/1")
    assert again == entry and [e.content for e in await store.read("t")] == ["hello"]


async def test_inline_writes_checkpoint_the_wal_so_it_stops_growing(
    database: Database, tmp_path: Path
) -> None:
    store, wal = TranscriptStore(database), tmp_path / "h.sqlite3-wal"
    for n in range(CHECKPOINT_EVERY - 1):
        await store.append("t", "x" * 2000, idempotency_key=f"m/{n}")
    one_round = wal.stat().st_size
    for n in range(CHECKPOINT_EVERY - 1, 3 * CHECKPOINT_EVERY):
        await store.append("t", "x" * 2000, idempotency_key=f"m/{n}")
    # Checkpointed every CHECKPOINT_EVERY writes, the WAL starts over instead of growing 3x.
    assert wal.stat().st_size < 1.5 * one_round
    assert await store.length("t") == 3 * CHECKPOINT_EVERY
