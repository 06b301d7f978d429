"""The bot's ledger tables: which Slack events were handled, which thread is whose.

They live in the harness's database (:mod:`harness.storage`): with ``HARNESS_DATABASE_URL``
every bot replica (and worker) of a deployment shares them, so a retry that reaches
another replica is not handled again and a thread reply reaching the replica that
did not see the mention still finds its task; unset, a SQLite file under the bot's
data dir (one host, as ``make run``; the bot picks it). The bot itself keeps nothing
a second replica would need. Claims are atomic: every key of one claim is inserted in one
transaction with ``ON CONFLICT DO NOTHING``, so of two replicas racing on one event exactly one
wins (PostgreSQL makes the second wait for the first's commit; SQLite's write lock
queues them). A ledger file of the release before (tables ``seen`` and ``thread``) is
carried over at its first open, so threads bound before an upgrade still reach their task.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from typing import Final, final

from sqlalchemy import Column, Float, MetaData, Table, Text, bindparam, delete, inspect, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection
from sqlalchemy.sql.expression import Executable

from harness.storage.connect import open_database
from harness.storage.engine import Database
from harness.storage.schema import seen_event, thread_binding

log = logging.getLogger(__name__)

KEEP_SECONDS: Final = 2 * 3600.0
"""Longer than Slack's retry window (about an hour), so no retry outlives its record."""
PRUNE_EVERY: Final = 256
"""Winning claims between two prunes of a ledger (the first one prunes): a worker claims each
local step, and a prune on every one was half of a claim's cost (issue 27)."""


_BEFORE: Final = MetaData()
_SEEN_BEFORE: Final = Table(
    "seen", _BEFORE, Column("key", Text, primary_key=True), Column("at", Float, nullable=False)
)
_THREAD_BEFORE: Final = Table(
    "thread",
    _BEFORE,
    Column("place", Text, primary_key=True),
    Column("task_id", Text, nullable=False),
)
"""The tables of ``bot-ledger.sqlite3`` before the ledger moved to the harness's database."""


async def _carry_over(db: Database) -> None:
    """Move the rows of a ledger file from before issue 13 into the tables of today, once.

    So a thread bound before an upgrade still reaches its task, and a retry of an
    event handled just before it is still known; the old tables are dropped after.
    """
    if db.dialect != "sqlite":
        return
    moves = ((_THREAD_BEFORE, thread_binding), (_SEEN_BEFORE, seen_event))
    async with db.transaction() as connection:
        names = set(await connection.run_sync(lambda c: inspect(c).get_table_names()))
        moved = []
        for before, now in moves:
            if before.name not in names:
                continue
            rows = [dict(row) for row in (await connection.execute(select(before))).mappings()]
            if rows:
                await connection.execute(sqlite.insert(now).on_conflict_do_nothing(), rows)
            await connection.run_sync(before.drop)
            moved.append(f"{len(rows)} {now.name} rows")
    if moved:
        log.info("ledger: carried over %s from the previous release's tables", " and ".join(moved))


def _insert(db: Database, table: Table) -> postgresql.Insert | sqlite.Insert:
    """``INSERT … ON CONFLICT`` is each dialect's own construct (the SQL is the same)."""
    return postgresql.insert(table) if db.dialect == "postgresql" else sqlite.insert(table)


def _claim_statements(db: Database) -> tuple[Executable, Executable, Executable]:
    """Insert one key (returning it if it was new), take keys back, prune before a time.

    Built once per ledger with bound parameters, so SQLAlchemy compiles each once (a
    statement with the values in it missed its cache: two thirds of a claim, issue 27).
    """
    key = seen_event.c.key
    insert = _insert(db, seen_event).values(key=bindparam("key"), at=bindparam("at"))
    claim = insert.on_conflict_do_nothing(index_elements=[key]).returning(key)
    take_back = delete(seen_event).where(key.in_(bindparam("keys", expanding=True)))
    prune = delete(seen_event).where(seen_event.c.at < bindparam("before"))
    return claim, take_back, prune


@final
class Ledger:
    """Seen event keys and thread -> task bindings in the harness's database.

    Opened on first use, or at start with :meth:`open` (the bot does, so a database it
    cannot reach stops it there). :meth:`over` shares a database already open.

    Args:
        url: the database (the bot picks it: ``bot.ledger.ledger_database``).
        pool_size: connections kept to PostgreSQL (``HARNESS_DATABASE_POOL_SIZE``).
        migrate: bring the tables up to date at open (``HARNESS_DATABASE_MIGRATE``).
    """

    def __init__(
        self, url: URL, *, pool_size: int = 5, migrate: bool = True, prune_every: int = PRUNE_EVERY
    ) -> None:
        self.url = url
        self._prune_every = prune_every
        self._wins = 0
        self._pool_size = pool_size
        self._migrate = migrate
        self._db: Database | None = None
        self._statements: tuple[Executable, Executable, Executable] | None = None
        self._owned = True
        self._opening = asyncio.Lock()

    @classmethod
    def over(cls, database: Database, *, prune_every: int = PRUNE_EVERY) -> Ledger:
        """A ledger on ``database``, left open by :meth:`aclose` (whoever opened it closes it)."""
        ledger = cls(database.engine.url, prune_every=prune_every)
        ledger._db, ledger._owned = database, False
        return ledger

    async def open(self) -> Database:
        """The database, opened (and migrated) the first time.

        Raises:
            DatabaseError: it cannot be reached, or its schema is newer than this code.
        """
        if self._db is None:
            async with self._opening:
                if self._db is None:
                    db = await open_database(
                        self.url, pool_size=self._pool_size, migrate=self._migrate
                    )
                    await _carry_over(db)
                    self._db = db
        return self._db

    async def claim(self, keys: Iterable[str]) -> bool:
        """Record ``keys``; ``True`` if none of them was seen before (the caller handles it).

        All or nothing: when one key was seen, none is recorded (the first claim stands).
        Claims older than :data:`KEEP_SECONDS` are pruned by a winning claim, the first of
        this ledger and then one in :data:`PRUNE_EVERY`.

        Raises:
            DatabaseError: the database failed.
        """
        wanted = sorted(set(keys))  # one order for every replica: no deadlock on PostgreSQL
        if not wanted:
            return True
        db = await self.open()
        if self._statements is None:
            self._statements = _claim_statements(db)
        claim, take_back, prune = self._statements
        now = time.time()
        pruning = self._wins % self._prune_every == 0

        def work(connection: Connection) -> bool:
            taken = [k for k in wanted if connection.execute(claim, {"key": k, "at": now}).first()]
            if len(taken) != len(wanted):  # the first claim stands: take back ours, if any
                if taken:
                    connection.execute(take_back, {"keys": taken})
                return False
            if pruning:
                connection.execute(prune, {"before": now - KEEP_SECONDS})
            return True

        won = await db.run(work)
        self._wins += won
        return won

    async def bind(self, place: str, task_id: str) -> None:
        """Remember that the thread at ``place`` (``team/channel/thread_ts``) is ``task_id``'s."""
        db = await self.open()
        insert = _insert(db, thread_binding).values(place=place, task_id=task_id)
        statement = insert.on_conflict_do_update(
            index_elements=[thread_binding.c.place], set_={"task_id": insert.excluded.task_id}
        )
        await db.run(lambda connection: connection.execute(statement))

    async def task_of(self, place: str) -> str | None:
        """The task bound to the thread at ``place``, if any."""
        db = await self.open()
        query = select(thread_binding.c.task_id).where(thread_binding.c.place == place)
        found = await db.run(lambda c: c.execute(query).scalar_one_or_none(), write=False)
        return None if found is None else str(found)

    async def aclose(self) -> None:
        """Close the database, if this ledger opened it; closing twice is fine."""
        db, self._db = self._db, None
        if db is not None and self._owned:
            await db.aclose()
