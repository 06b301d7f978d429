"""SQLite transactions in the event loop's own thread: a short one without a thread hop.

aiosqlite runs each statement in a thread of its own, so a transaction of three statements
is a dozen hand-offs of the GIL between that thread and the event loop's; on a busy worker
(workflow threads, the SDK's) each hand-off waits up to the interpreter's switch interval
(5 ms) for the other thread. A transcript append, 0.05 ms of SQLite, cost ~30 ms that way
(issue 27: ``bench/load.py`` ``persistence.write.in``). A transaction on a local file in WAL
mode takes well under a millisecond, so :class:`InlineSqlite` runs it in the loop's thread
with the sqlite3 module (SQLAlchemy's sync engine), as long as the file's write lock is
free: it never waits for it (busy timeout 0). When another connection holds the lock (another
process, or this process's async engine between two awaits) the driver fails at once with
SQLITE_BUSY, having written nothing, and :meth:`harness.storage.engine.Database.run` (the
boundary for driver errors) runs the same work on the async engine, which waits for the lock
in its thread as every transaction did before.

Its connection never checkpoints the WAL itself (a checkpoint syncs the file: milliseconds);
:meth:`~harness.storage.engine.Database.run` has one made in a thread (:meth:`InlineSqlite.
checkpoint`) every :data:`CHECKPOINT_EVERY` inline writes.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable
from typing import Any, Final, TypeVar, final

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection

CHECKPOINT_EVERY: Final = 256
"""Inline write transactions between two WAL checkpoints (each run in the driver's thread)."""
T = TypeVar("T")


@final
class InlineSqlite:
    """One sqlite3 connection to the file at ``url``, used from the event loop's thread.

    Args:
        url: the SQLite file (any ``sqlite`` driver name; it is opened with sqlite3).
    """

    def __init__(self, url: URL) -> None:
        self.engine = create_engine(
            url.set(drivername="sqlite+pysqlite"),
            pool_size=1,
            max_overflow=0,
            pool_timeout=0,
            # Never wait for the file's lock in the loop's thread (Busy instead); the one
            # connection is only ever used by one transaction at a time (nothing awaits in one).
            connect_args={"timeout": 0, "check_same_thread": False},
        )
        event.listen(self.engine, "connect", _on_connect)
        self.path = str(url.database)

    def attempt(self, work: Callable[[Connection], T], *, write: bool) -> T:
        """``work(connection)`` in one transaction, committed; a writer's takes the write lock
        first (``BEGIN IMMEDIATE``), a reader's reads one snapshot (``BEGIN``).

        Raises:
            SQLAlchemyError: the database failed (rolled back), SQLITE_BUSY at once when the
                lock is held elsewhere.
        """
        with self.engine.connect() as connection:
            connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
            done = work(connection)
            connection.commit()
            return done

    def checkpoint(self) -> None:
        """Copy the WAL's pages into the file (``PASSIVE``: writers go on meanwhile), on a
        connection of its own; for a thread other than the loop's (it syncs the file).

        Raises:
            sqlite3.Error: the database failed.
        """
        with contextlib.closing(sqlite3.connect(self.path, timeout=10)) as connection:
            connection.execute("PRAGMA wal_checkpoint(PASSIVE)").close()

    def close(self) -> None:
        """Close the connection."""
        self.engine.dispose()


def _on_connect(dbapi_connection: Any, _: object) -> None:  # noqa: ANN401  # the driver's
    dbapi_connection.isolation_level = None  # BEGIN is ours (attempt), not the driver's
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "wal_autocheckpoint=0"):
        dbapi_connection.execute(f"PRAGMA {pragma}")
