"""The transcript store's contract on SQLite and PostgreSQL (issue 13): one row per message,
positions from 1 with no gap, idempotent appends, range reads, and appenders on two hosts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from harness.storage import Database, TranscriptStore, open_database
from tests.support.statements import statements_compiled, statements_sent


@pytest.fixture
def store(database: Database) -> TranscriptStore:
    return TranscriptStore(database)


@pytest.fixture
async def other_host(database: Database) -> AsyncIterator[TranscriptStore]:
    """A second process's store: its own engine and pool on the same database."""
    second = await open_database(database.engine.url)
    try:
        yield TranscriptStore(second)
    finally:
        await second.aclose()


async def test_appends_take_the_next_position_and_ranges_read_them_in_order(store) -> None:
    assert await store.length("t") == 0 and await store.read("t") == ()
    appended = [await store.append("t", f"m{n}") for n in range(1, 6)]
    await store.append("other", "elsewhere")
    assert [e.version for e in appended] == [1, 2, 3, 4, 5]
    assert await store.length("t") == 5 and await store.length("other") == 1
    assert [e.content for e in await store.read("t")] == ["m1", "m2", "m3", "m4", "m5"]
    assert [e.version for e in await store.read("t", after=2, limit=2)] == [3, 4]
    assert [e.content for e in await store.read("t", after=-2)] == ["m4", "m5"]
    assert [e.content for e in await store.read("t", after=-10)] == ["m1", "m2", "m3", "m4", "m5"]
    assert await store.read("t", after=5) == ()


async def test_a_repeated_idempotency_key_appends_nothing_and_returns_the_first(store) -> None:
    first = await store.append("t", "once", idempotency_key="message/1.1")
    await store.append("t", "between")
    again = await store.append("t", "retried", idempotency_key="message/1.1")
    assert again == first and (again.version, again.content) == (1, "once")
    assert [e.content for e in await store.read("t")] == ["once", "between"]
    assert (await store.append("t2", "x", idempotency_key="message/1.1")).version == 1


async def test_appenders_on_two_hosts_lose_and_repeat_no_message(store, other_host) -> None:
    appends = [
        s.append("shared", f"{name}-{n}", idempotency_key=f"{n % 10}-{name}")
        for n in range(20)
        for name, s in (("a", store), ("b", other_host))
    ]
    results = await asyncio.gather(*appends)
    # 20 distinct keys (n % 10, host): each appended once; a repeat returns the first row.
    assert len({e.version for e in results}) == 20
    stored = await other_host.read("shared")
    assert [e.version for e in stored] == list(range(1, 21))
    assert len({e.content.split("-")[0] + str(e.version) for e in stored}) == 20


async def test_a_span_reads_a_range_and_the_length_together(store) -> None:
    for n in range(1, 6):
        await store.append("t", f"m{n}")
    entries, length = await store.span("t", after=-2)
    assert length == 5 and [e.content for e in entries] == ["m4", "m5"]
    entries, length = await store.span("t", after=1, limit=2)
    assert length == 5 and [e.version for e in entries] == [2, 3]
    assert await store.span("empty", after=-20) == ((), 0)


async def test_a_new_append_is_one_statement_a_repeat_two(store, database) -> None:
    """What an append costs is its round trips (each waits for a busy worker's loop while it
    holds the connection): the common case is one INSERT, a repeat one more SELECT."""
    with statements_sent(database) as statements:
        await store.append("t", "first", idempotency_key="message/1")
        assert len(statements) == 1 and statements[0].lstrip().upper().startswith("INSERT")
        statements.clear()
        again = await store.append("t", "retried", idempotency_key="message/1")
        assert (again.version, again.content) == (1, "first") and len(statements) == 2


async def test_appends_after_the_first_compile_no_statement(store, database) -> None:
    """An append is a message's cost on a busy worker: its INSERT is built once, so SQLAlchemy
    compiles it once, not for each message's text (issue 27)."""
    await store.append("t", "first", idempotency_key="message/1")
    with statements_compiled(database) as compiled:
        await store.append("t", "second", idempotency_key="message/2")
        await store.append("u", "another task's", idempotency_key="message/3")
        await store.append("u", "no key")
    assert compiled == []
    assert [e.content for e in await store.read("u")] == ["another task's", "no key"]
