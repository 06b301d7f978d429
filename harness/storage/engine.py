"""Opening the database: the URL, the engine and its pool, the one boundary for driver errors.

``HARNESS_DATABASE_URL`` names a PostgreSQL server (``postgresql://user:pass@host/db``,
driven by asyncpg) that every worker and bot replica of a deployment shares; unset, a
process uses a SQLite file (aiosqlite) under its data dir. Both go through SQLAlchemy's
async engine, so no query waits in the event loop's thread (a short SQLite transaction runs
there while the file is free, :meth:`Database.run`, and never waits), and through the same tables
(:mod:`harness.storage.schema`). Driver and connection errors become :class:`DatabaseError`
here and in :mod:`harness.storage.migrate`; the URL's password never appears in one.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final, TypeVar, final

from sqlalchemy import Table, event, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql import Insert

from harness.errors import ServiceError
from harness.storage.inline import CHECKPOINT_EVERY, InlineSqlite

log = logging.getLogger(__name__)
T = TypeVar("T")
_BUSY: Final = frozenset({sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED})

# Alembic logs "setup plugin …" as it is imported (harness.storage.migrate imports it after this
# module) and "Context impl …" at every open, at INFO; harness.storage.migrate says what it did
# instead, once, when it migrates.
for _name in ("alembic.runtime.migration", "alembic.runtime.plugins"):
    logging.getLogger(_name).setLevel(logging.WARNING)

ENV_VAR: Final = "HARNESS_DATABASE_URL"

_DRIVERS: Final = {
    "postgresql": "postgresql+asyncpg",
    "postgres": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
}
_HOW: Final = (
    "give postgresql://HOST:5432/DATABASE (with USER:PASSWORD@ before the host), "
    "or unset it for SQLite"
)


class DatabaseError(ServiceError):
    """The database is misconfigured or cannot be reached; the message says which and the fix.

    Retryable when the server could not be reached (it may come back); not when the
    URL itself is wrong. Never holds the URL's password.

    Args:
        source: what is at fault (``HARNESS_DATABASE_URL``, the server's address).
        problem: what is wrong, and how to fix it.
        retryable: whether trying again later may help.
    """

    def __init__(self, *, source: str, problem: str, retryable: bool = False) -> None:
        self.source = source
        self.problem = problem
        self._retryable = retryable
        super().__init__(f"{source}: {problem}")

    @property
    def retryable(self) -> bool:
        """Yes when the server was unreachable; no when the setting must change first."""
        return self._retryable


def database_url(explicit: str, sqlite_file: Path) -> URL:
    """The URL to open: ``explicit`` (``HARNESS_DATABASE_URL``) or else ``sqlite_file``.

    Raises:
        DatabaseError: ``explicit`` is not a URL of a supported engine.
    """
    if not explicit.strip():
        return URL.create("sqlite+aiosqlite", database=str(sqlite_file))
    try:
        url = make_url(explicit.strip())
    except ArgumentError:
        raise DatabaseError(source=ENV_VAR, problem=f"is not a URL; {_HOW}") from None
    driver = _DRIVERS.get(url.drivername)
    if driver is None:
        problem = f"engine {url.drivername!r} is not supported; {_HOW}"
        raise DatabaseError(source=ENV_VAR, problem=problem)
    if driver.startswith("sqlite") and not url.database:
        raise DatabaseError(
            source=ENV_VAR, problem="names no SQLite file; give sqlite:///path/to/file"
        )
    return url.set(drivername=driver)


@final
class Database:
    """An open database: its async engine (and pool) and which engine it is.

    Args:
        engine: the SQLAlchemy async engine.
        inline: on SQLite, the event loop's own connection to the file (:meth:`run`).
    """

    def __init__(self, engine: AsyncEngine, inline: InlineSqlite | None = None) -> None:
        self.engine = engine
        self.inline = inline
        self._inline_writes = 0

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    def describe(self) -> str:
        """Where it is, with no password: ``postgresql://harness@db:5432/harness``."""
        return self.engine.url.render_as_string(hide_password=True)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        """A connection in a transaction (``BEGIN IMMEDIATE`` on SQLite: writers queue, never
        deadlock), committed on exit, rolled back on error; driver errors become
        :class:`DatabaseError`."""
        try:
            async with self.engine.begin() as connection:
                yield connection
        except (SQLAlchemyError, OSError) as error:  # asyncpg raises OSError on connect
            raise unavailable(self, error) from None

    async def run(self, work: Callable[[Connection], T], *, write: bool = True) -> T:
        """``work(connection)`` in one transaction, committed; driver errors become
        :class:`DatabaseError`. ``work`` is synchronous: it may run twice (its first try
        rolled back), so it does nothing but its statements.

        On SQLite it runs in the event loop's thread when the file's lock is free
        (:mod:`harness.storage.inline`: no thread hop per statement), else, and on
        PostgreSQL always, on the async engine as :meth:`transaction` does. ``write=False``
        promises no writes: on SQLite it then reads one snapshot without the write lock.
        """
        if self.inline is not None:
            try:
                done = self.inline.attempt(work, write=write)
            except SQLAlchemyError as error:
                if not _busy(error):  # busy: another connection holds the lock; wait below
                    raise unavailable(self, error) from None
            else:
                if write:
                    await self._count_inline_write(self.inline)
                return done
        async with self.transaction() as connection:
            return await connection.run_sync(work)

    async def _count_inline_write(self, inline: InlineSqlite) -> None:
        """Checkpoint the WAL every :data:`CHECKPOINT_EVERY` inline writes, in a thread (the
        inline connection never does: it would sync the file in the loop's thread)."""
        self._inline_writes += 1
        if self._inline_writes < CHECKPOINT_EVERY:
            return
        self._inline_writes = 0
        try:
            await asyncio.to_thread(inline.checkpoint)
        except sqlite3.Error as error:  # the next one may succeed; nothing is lost meanwhile
            log.info("WAL checkpoint of %s skipped: %s", self.describe(), error)

    async def ping(self) -> None:
        """One round trip (``SELECT 1``), taking no lock: what a readiness probe asks.

        Raises:
            DatabaseError: the database did not answer.
        """
        try:
            async with self.engine.connect() as connection:
                await connection.execute(select(1))
        except (SQLAlchemyError, OSError) as error:  # asyncpg raises OSError on connect
            raise unavailable(self, error) from None

    def insert_new(self, table: Table) -> Insert:
        """``INSERT … ON CONFLICT DO NOTHING`` into ``table`` on this engine: a row that
        another writer (any host) made first under one of the table's unique keys leaves
        the insert a no-op, not an error (``RETURNING`` then gives no row)."""
        if self.dialect == "postgresql":
            return postgresql.insert(table).on_conflict_do_nothing()
        return sqlite.insert(table).on_conflict_do_nothing()

    def insert_latest(self, table: Table, key: Sequence[str], replaced: Sequence[str]) -> Insert:
        """``INSERT … ON CONFLICT (key) DO UPDATE`` into ``table`` on this engine: a row
        under the same ``key`` columns takes the ``replaced`` columns' new values (the
        latest write wins, whichever host made the first)."""
        insert = postgresql.insert(table) if self.dialect == "postgresql" else sqlite.insert(table)
        latest = {name: insert.excluded[name] for name in replaced}
        return insert.on_conflict_do_update(index_elements=list(key), set_=latest)

    async def aclose(self) -> None:
        """Close every pooled connection."""
        if self.inline is not None:
            self.inline.close()
        await self.engine.dispose()

    def __repr__(self) -> str:
        return f"<Database {self.describe()}>"


def unavailable(db: Database, error: BaseException) -> DatabaseError:
    """``error`` from the driver as a :class:`DatabaseError` naming the database, no password."""
    cause = getattr(error, "orig", None) or error
    what = type(cause).__name__
    # The driver's own words go to the log at INFO (the caller reports the error itself, once;
    # the redactor masks secrets in logs), never into the error: it travels into Temporal's
    # history, and a constraint's DETAIL quotes rows.
    first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    log.info("database %s failed: %s: %s", db.describe(), what, first[:200])
    problem = (
        f"the database failed ({what}); check that it is running and reachable, and the credentials"
    )
    return DatabaseError(source=db.describe(), problem=problem, retryable=True)


def _busy(error: SQLAlchemyError) -> bool:
    """Whether SQLite refused ``error``'s statement because another connection holds a lock
    (or the inline connection is in use: another thread's loop)."""
    if isinstance(error, PoolTimeout):
        return True
    code = getattr(getattr(error, "orig", None), "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _BUSY


def sqlite_pragmas(engine: AsyncEngine) -> None:
    """WAL (readers in other processes go on while one writes), a busy timeout instead of an
    immediate "database is locked", and ``BEGIN IMMEDIATE`` so a transaction that reads
    then writes takes the write lock first (a deferred one could not wait for it)."""

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _: object) -> None:  # noqa: ANN401  # the driver's
        dbapi_connection.isolation_level = None  # transactions are begun by the event below
        cursor = dbapi_connection.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=10000"):
            cursor.execute(f"PRAGMA {pragma}")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:  # noqa: ANN401  # SQLAlchemy's Connection
        connection.exec_driver_sql("BEGIN IMMEDIATE")
