"""The artefact store's contract on SQLite and PostgreSQL (issue 13): versions, idempotency,
and writers on two hosts (two Database objects on one database) racing on one key."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from harness.storage import Database, open_database
from harness.storage.artefacts import SqlArtefactStore
from tests.support.statements import statements_sent


@pytest.fixture
def store(database: Database) -> SqlArtefactStore:
    return SqlArtefactStore(database)


@pytest.fixture
async def other_host(database: Database) -> AsyncIterator[SqlArtefactStore]:
    """A second process's store: its own engine and pool on the same database."""
    second = await open_database(database.engine.url)
    try:
        yield SqlArtefactStore(second)
    finally:
        await second.aclose()


async def test_each_write_adds_a_version_and_reads_see_latest_or_the_one_asked(store) -> None:
    assert await store.read("k") is None and await store.versions("k") == ()
    written = [await store.write("k", f"v{n}") for n in range(1, 4)]
    await store.write("other", "elsewhere")
    assert [a.version for a in written] == [1, 2, 3]
    assert (await store.read("k")).content == "v3"
    assert (await store.read("k", 2)).content == "v2"
    assert await store.read("k", 4) is None
    assert [(a.version, a.content) for a in await store.versions("k")] == [
        (1, "v1"),
        (2, "v2"),
        (3, "v3"),
    ]
    assert [a.version for a in await store.versions("other")] == [1]


async def test_a_repeated_idempotency_key_returns_what_it_wrote(store) -> None:
    first = await store.write("k", "once", idempotency_key="activity-1")
    await store.write("k", "between")
    again = await store.write("k", "retried with other text", idempotency_key="activity-1")
    assert again == first and again.content == "once"
    assert [a.content for a in await store.versions("k")] == ["once", "between"]
    # The key is per artefact: another artefact may use the same idempotency key.
    assert (await store.write("k2", "x", idempotency_key="activity-1")).version == 1


async def test_writers_on_two_hosts_lose_and_duplicate_no_version(store, other_host) -> None:
    writes = [
        s.write("shared", f"{name}-{n}")
        for n in range(20)
        for name, s in (("a", store), ("b", other_host))
    ]
    results = await asyncio.gather(*writes)
    assert sorted(a.version for a in results) == list(range(1, 41))
    stored = await other_host.versions("shared")
    assert [a.version for a in stored] == list(range(1, 41))
    assert {a.content for a in stored} == {a.content for a in results}
    assert len({a.content for a in stored}) == 40


async def test_the_same_write_retried_on_two_hosts_at_once_is_stored_once(
    store, other_host
) -> None:
    """An activity retried on another worker while the first attempt still runs."""
    writes = [
        s.write("t", f"turn {n}", idempotency_key=f"turn-{n}")
        for n in range(10)
        for s in (store, other_host, store)
    ]
    results = await asyncio.gather(*writes)
    stored = await store.versions("t")
    assert len(stored) == 10 and [a.version for a in stored] == list(range(1, 11))
    by_turn: dict[str, set[int]] = {}
    for artefact in results:
        by_turn.setdefault(artefact.content, set()).add(artefact.version)
    assert all(len(versions) == 1 for versions in by_turn.values()), by_turn
    assert {a.content: a.version for a in stored} == {c: v.pop() for c, v in by_turn.items()}


async def test_a_new_write_is_one_statement_a_repeat_two(store, database) -> None:
    """No read before the write: one INSERT … SELECT max + 1; a repeat's no-op insert, then
    the SELECT of the version it wrote."""
    with statements_sent(database) as statements:
        await store.write("k", "first", idempotency_key="turn-1")
        assert len(statements) == 1 and statements[0].lstrip().upper().startswith("INSERT")
        statements.clear()
        again = await store.write("k", "retried", idempotency_key="turn-1")
        assert (again.version, again.content) == (1, "first") and len(statements) == 2
