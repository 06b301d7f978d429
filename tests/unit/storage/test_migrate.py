from __future__ import annotations

import pytest
from sqlalchemy import inspect

from harness.storage import Database, DatabaseError, database_url, open_database
from harness.storage.migrate import VERSION_TABLE, current, head
from harness.storage.schema import METADATA


async def test_a_fresh_database_is_migrated_to_this_release(database: Database) -> None:
    assert await current(database) == head()
    async with database.engine.connect() as connection:
        tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert set(METADATA.tables) | {VERSION_TABLE} <= tables


async def test_opening_again_changes_nothing(database: Database, tmp_path) -> None:
    again = await open_database(database.engine.url, migrate=True)
    try:
        assert await current(again) == head()
    finally:
        await again.aclose()


async def test_a_database_of_a_newer_release_is_refused(database: Database) -> None:
    async with database.transaction() as connection:
        await connection.exec_driver_sql(f"UPDATE {VERSION_TABLE} SET version_num = '9999'")
    with pytest.raises(DatabaseError, match="newer than this release"):
        await open_database(database.engine.url)


async def test_an_unreachable_server_is_named_without_its_password(postgres, tmp_path) -> None:
    url = database_url(f"postgresql://harness:s3cret-pw@127.0.0.1:{postgres.port + 1}/x", tmp_path)
    with pytest.raises(DatabaseError) as caught:
        await open_database(url)
    assert "127.0.0.1" in str(caught.value) and "s3cret-pw" not in str(caught.value)
    assert caught.value.retryable


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("mysql://x/y", "not supported"),
        ("sqlite://", "names no SQLite file"),
        ("not a url", "not a URL"),
    ],
)
def test_an_unusable_url_says_what_to_give(text: str, problem: str, tmp_path) -> None:
    with pytest.raises(DatabaseError, match=problem) as caught:
        database_url(text, tmp_path / "x.sqlite3")
    assert "postgresql://" in str(caught.value) or "sqlite:///" in str(caught.value)
    assert not caught.value.retryable


def test_unset_is_the_sqlite_file(tmp_path) -> None:
    url = database_url("", tmp_path / "a.sqlite3")
    assert url.drivername == "sqlite+aiosqlite" and url.database == str(tmp_path / "a.sqlite3")
    assert database_url("postgres://u@h/d", tmp_path).drivername == "postgresql+asyncpg"


async def test_a_process_that_does_not_migrate_refuses_tables_of_another_release(
    database: Database,
) -> None:
    assert await current(database) == head()
    again = await open_database(database.engine.url, migrate=False)  # this release's: taken
    await again.aclose()
    async with database.transaction() as connection:
        await connection.exec_driver_sql(f"UPDATE {VERSION_TABLE} SET version_num = '0001'")
    with pytest.raises(DatabaseError, match=r"schema 0001: is not this release's .*upgrade"):
        await open_database(database.engine.url, migrate=False)
