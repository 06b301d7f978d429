"""The bot's ledger tables on both engines (the ``database`` fixture: SQLite and a real PostgreSQL).

Claims are all or nothing and first-wins, also between two ledgers with their own
connection pools on one database racing on the same events (two bot replicas);
thread bindings one replica writes, the other reads.
"""

from __future__ import annotations

import asyncio
import socket
import sqlite3
import time

import pytest
from sqlalchemy import select

from harness.storage import Database, DatabaseError, database_url
from harness.storage.ledger import KEEP_SECONDS, Ledger
from harness.storage.schema import seen_event
from tests.support.statements import statements_compiled


async def seen(db: Database) -> set[str]:
    async with db.transaction() as connection:
        return set((await connection.execute(select(seen_event.c.key))).scalars())


async def test_a_claim_wins_once_and_is_all_or_nothing(database):
    ledger = Ledger.over(database)
    assert await ledger.claim(["event:E1", "message:T/C/1.0"])
    assert not await ledger.claim(["event:E1"])  # a retry
    assert not await ledger.claim(["event:E2", "message:T/C/1.0"])  # the mention's twin
    assert await seen(database) == {"event:E1", "message:T/C/1.0"}  # E2 was not recorded
    assert await ledger.claim(["event:E2"])
    assert await ledger.claim([])  # nothing to dedupe on: handled
    await ledger.aclose()
    assert await seen(database) == {"event:E1", "event:E2", "message:T/C/1.0"}  # still open


async def test_claims_after_the_first_compile_no_statement(database):
    # A worker claims every local step: SQLAlchemy compiles a claim's statements once, not
    # per claim (issue 27).
    ledger = Ledger.over(database)
    assert await ledger.claim(["event:A"])
    assert not await ledger.claim(["event:A", "event:B"])  # takes back event:B
    with statements_compiled(database) as compiled:
        assert await ledger.claim(["event:B"])
        assert await ledger.claim(["event:C", "event:D"])
        assert not await ledger.claim(["event:D", "event:E"])
    assert compiled == []
    assert await seen(database) == {"event:A", "event:B", "event:C", "event:D"}


async def test_claims_older_than_the_retry_window_are_pruned(database):
    async with database.transaction() as connection:
        await connection.execute(
            seen_event.insert().values(key="event:OLD", at=time.time() - KEEP_SECONDS - 60)
        )
    ledger = Ledger.over(database)
    assert not await ledger.claim(["event:OLD", "event:NEW"])  # still there until a claim wins
    assert await ledger.claim(["event:NEW"])
    assert await seen(database) == {"event:NEW"}
    assert await ledger.claim(["event:OLD"])


async def test_later_claims_prune_once_in_prune_every_wins(database):
    ledger = Ledger.over(database, prune_every=3)
    assert await ledger.claim(["event:A"])  # the first win prunes (nothing old yet)
    async with database.transaction() as connection:
        await connection.execute(
            seen_event.insert().values(key="event:OLD", at=time.time() - KEEP_SECONDS - 60)
        )
    assert await ledger.claim(["event:B"])
    assert await ledger.claim(["event:C"])
    assert "event:OLD" in await seen(database)  # not pruned by the second and third wins
    assert not await ledger.claim(["event:C"])  # a lost claim counts for nothing
    assert await ledger.claim(["event:D"])  # the fourth win: one in three
    assert await seen(database) == {"event:A", "event:B", "event:C", "event:D"}


async def test_bindings_are_read_back_and_rebound(database):
    ledger = Ledger.over(database)
    assert await ledger.task_of("T/C/1.0") is None
    await ledger.bind("T/C/1.0", "task/T/C")
    await ledger.bind("T/C/2.0", "task/T/C/sub")
    assert await ledger.task_of("T/C/1.0") == "task/T/C"
    await ledger.bind("T/C/1.0", "task/T/C/2")
    assert await ledger.task_of("T/C/1.0") == "task/T/C/2"
    assert await ledger.task_of("T/C/2.0") == "task/T/C/sub"


async def test_two_ledgers_on_one_database_racing_on_each_event_one_wins(database):
    """Two replicas, each with its own pool, claim 30 events at once (keys in either order)."""
    a = Ledger(database.engine.url)
    b = Ledger(database.engine.url)
    try:
        events = [(f"event:E{i}", f"message:T/C/{i}.0") for i in range(30)]
        claims = [
            ledger.claim(keys if ledger is a else reversed(keys))
            for keys in events
            for ledger in (a, b)
        ]
        won = await asyncio.wait_for(asyncio.gather(*claims), 60)
        assert [won[i] + won[i + 1] for i in range(0, len(won), 2)] == [1] * len(events)
        await b.bind("T/C/0.0", "task/T/C")  # what B binds, A reads
        assert await a.task_of("T/C/0.0") == "task/T/C"
        assert len(await seen(database)) == 60
    finally:
        await a.aclose()
        await b.aclose()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_database_that_is_not_there_is_a_database_error_without_the_password(tmp_path):
    url = f"postgresql://bot:s3cret-pw@127.0.0.1:{free_port()}/harness"
    ledger = Ledger(database_url(url, tmp_path / "unused"))
    with pytest.raises(DatabaseError) as failed:
        await ledger.open()
    assert failed.value.retryable
    assert "s3cret-pw" not in str(failed.value) and "127.0.0.1" in str(failed.value)


async def test_a_ledger_file_of_the_previous_release_is_carried_over_once(tmp_path):
    """``bot-ledger.sqlite3`` before issue 13 had tables ``seen`` and ``thread`` of its own."""
    path = tmp_path / "bot-ledger.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript("""
            CREATE TABLE seen (key TEXT PRIMARY KEY, at REAL NOT NULL);
            CREATE TABLE thread (place TEXT PRIMARY KEY, task_id TEXT NOT NULL);
        """)
        old.execute("INSERT INTO seen VALUES ('event:E1', ?)", (time.time(),))
        old.execute("INSERT INTO thread VALUES ('T/C/1.0', 'task/T/C')")
    old.close()
    for _ in range(2):  # the second open finds nothing left to carry
        ledger = Ledger(database_url("", path))
        try:
            assert await ledger.task_of("T/C/1.0") == "task/T/C"
            assert not await ledger.claim(["event:E1"])  # handled just before the upgrade
        finally:
            await ledger.aclose()
    with sqlite3.connect(path) as now:
        tables = {name for (name,) in now.execute("SELECT name FROM sqlite_master")}
    now.close()
    assert {"seen_event", "thread_binding"} <= tables and not {"seen", "thread"} & tables
