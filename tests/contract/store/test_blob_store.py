"""The blob store's contract on SQLite and PostgreSQL (issue 27): many keys written and read
in one statement each, the latest write of a key wins, and a key never written is absent."""

from __future__ import annotations

from harness.storage import Database
from harness.storage.blobs import BATCH, BlobStore
from tests.support.statements import statements_sent


async def test_values_come_back_by_key_and_a_key_never_written_is_left_out(
    database: Database,
) -> None:
    store = BlobStore(database)
    await store.put_many({"message/a": "one", "message/b": "two"})
    assert await store.get_many(["message/a", "message/b", "message/none"]) == {
        "message/a": "one",
        "message/b": "two",
    }
    assert await store.get_many([]) == {}


async def test_the_latest_write_of_a_key_is_what_it_holds(database: Database) -> None:
    store = BlobStore(database)
    await store.put_many({"message/a": "first", "message/b": "kept"})
    await store.put_many({"message/a": "again"})  # a step run again after a lost task
    assert await store.get_many(["message/a", "message/b"]) == {
        "message/a": "again",
        "message/b": "kept",
    }


async def test_a_window_is_one_statement_each_way(database: Database) -> None:
    store = BlobStore(database)
    values = {f"message/{n}": f"value {n}" for n in range(40)}
    with statements_sent(database) as sent:
        await store.put_many(values)
        assert await store.get_many(values) == values
    assert len([s for s in sent if s.lstrip().upper().startswith(("INSERT", "SELECT"))]) == 2


async def test_more_keys_than_a_statement_takes_all_come_back(database: Database) -> None:
    store = BlobStore(database)
    values = {f"message/{n}": str(n) for n in range(BATCH * 2 + 3)}
    await store.put_many(values)
    assert await store.get_many(values) == values
