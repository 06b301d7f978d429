"""Opening the database: an engine with its pool, checked and migrated before first use.

A process opens its database once at start (:func:`open_database`) and shares the
:class:`~harness.storage.engine.Database` among its stores; a server that cannot be reached
fails the start with a :class:`~harness.storage.engine.DatabaseError` naming it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import create_async_engine

from harness.storage.engine import Database, sqlite_pragmas
from harness.storage.inline import InlineSqlite

log = logging.getLogger(__name__)


async def open_database(
    url: URL, *, pool_size: int = 5, migrate: bool = True, check: bool = True
) -> Database:
    """Open the database at ``url`` and bring its tables up to date; with ``migrate`` off,
    refuse tables of another release instead (unless ``check`` is off too: the CLI's
    ``current`` only reads where they are).

    Raises:
        DatabaseError: it cannot be reached, or its schema is not this release's (newer, or
            older while ``migrate`` is off).
    """
    options: dict[str, Any] = {}
    inline = None
    if url.drivername.startswith("postgresql"):
        # A pooled connection to a server may have died with it: tried before each use.
        options |= {"pool_size": pool_size, "max_overflow": pool_size, "pool_pre_ping": True}
    elif url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        # One connection: SQLite has one writer anyway, and a process's transactions then
        # queue in the pool instead of spinning on the file lock against each other (under
        # 100 busy tasks a busy timeout ran out). Other processes still wait on the lock.
        # No ping before each use: a connection to a local file does not go stale, and the
        # ping was one more round trip through aiosqlite's thread per transaction.
        options |= {"pool_size": 1, "max_overflow": 0, "pool_timeout": 120}
        # Short transactions run in the loop's own thread while the file is free.
        inline = InlineSqlite(url)
    # Alembic (~0.25 s) loads when a database is opened, not with every store's import.
    from harness.storage.migrate import require_head, upgrade

    db = Database(create_async_engine(url, **options), inline)
    if db.dialect == "sqlite":
        sqlite_pragmas(db.engine)
    try:
        if migrate:
            await upgrade(db)
        elif check:
            await require_head(db)
        else:
            async with db.transaction():
                pass
    except BaseException:
        await db.aclose()
        raise
    log.info("database %s (%s)", db.describe(), db.dialect)
    return db
