"""Fixtures every test package may use: the real PostgreSQL server and the database under test."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from harness.storage import Database, database_url, open_database
from harness.storage.artefacts import SqlArtefactStore
from tests.support.postgres import PostgresServer, running

# The testing kit's fixtures (harness_stack, harness_slack), loaded as a user's conftest
# loads them (pytest reads pytest_plugins only in the root conftest); pytester runs the
# kit's plugin in a project of its own (tests/unit/bot/testing/test_pytest_plugin.py).
# The session's Temporal dev server and client: one for every tier that asks (issue 27).
pytest_plugins = ["bot.testing.pytest_plugin", "pytester", "tests.support.temporal_server"]


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """One PostgreSQL server for the session (tests take a fresh database each)."""
    with running(tmp_path_factory.mktemp("postgres")) as server:
        yield server


def database_url_for(engine: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database of ``engine`` (``sqlite`` or ``postgresql``), as a URL."""
    if engine == "sqlite":
        return f"sqlite:///{tmp_path / f'db-{uuid.uuid4().hex[:8]}.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.create_database(f"t_{uuid.uuid4().hex[:12]}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_engine(request: pytest.FixtureRequest) -> str:
    """Each test that takes it runs twice: on SQLite and on PostgreSQL."""
    return str(request.param)


@pytest.fixture
async def database(
    database_engine: str, request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[Database]:
    """A fresh, migrated database on each engine."""
    url = database_url_for(database_engine, request, tmp_path)
    db = await open_database(database_url(url, tmp_path / "unused"))
    try:
        yield db
    finally:
        await db.aclose()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[SqlArtefactStore]:
    """An artefact store on a fresh SQLite database: for tests of what uses a store, not of it
    (the store's own contract runs on both engines, tests/contract/store)."""
    db = await open_database(database_url("", tmp_path / "artefacts.sqlite3"))
    try:
        yield SqlArtefactStore(db)
    finally:
        await db.aclose()
