"""The transcript store: a task's messages as append-only rows, one write per message.

A transcript used to be an artefact rewritten whole at every message (each version kept:
the store grew with the square of the thread). Here each message is one row at the next
position of its key, written once per idempotency key, so a retried activity, or the same
write from a worker on another host, appends nothing twice. It is read by range: what a
run needs, never the whole thread. Only the default bodies of ``persistence.write`` (append
mode) and ``persistence.read`` (a range) use it (:mod:`harness.bodies.persistence`).
"""

from __future__ import annotations

from typing import Final, final

from sqlalchemy import Text, cast, func, literal, select
from sqlalchemy.engine import URL, Connection
from sqlalchemy.sql import Executable

from harness.domain import Artefact
from harness.storage.connect import open_database
from harness.storage.engine import Database, DatabaseError
from harness.storage.schema import transcript

MAX_APPEND_ROUNDS: Final = 1000
"""How often one append may lose the next position to another writer before it gives up."""


@final
class TranscriptStore:
    """Append-only transcripts in the ``transcript`` table of a :class:`Database`.

    An entry is an :class:`~harness.domain.Artefact` whose ``version`` is its position
    (from 1). The next position is ``max + 1``, inserted with ``ON CONFLICT DO NOTHING``:
    a writer elsewhere that took that position (or this idempotency key) first makes the
    insert a no-op, and this one re-reads: the winner's row for its key, or the next
    position.

    Args:
        database: the process's open database.
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    async def append(self, task: str, message: str, *, idempotency_key: str = "") -> Artefact:
        """Append ``message`` to transcript ``task``; once per ``idempotency_key``.

        Returns:
            The entry as stored; an earlier one when the key was used already.

        Raises:
            DatabaseError: the database failed, or the transcript stayed contended.
        """
        once = idempotency_key or None

        def append(connection: Connection) -> Artefact | None:
            for _ in range(MAX_APPEND_ROUNDS):
                # One statement in the common case: an append is what a message costs.
                position = connection.scalar(self._insert_next(task, message, once))
                if position is not None:
                    return Artefact(key=task, version=int(position), content=message)
                if once is not None and (done := self._appended(connection, task, once)):
                    return done
            return None

        if (entry := await self.database.run(append)) is not None:
            return entry
        problem = f"transcript {task!r} stayed contended for {MAX_APPEND_ROUNDS} rounds"
        raise DatabaseError(source=self.database.describe(), problem=problem, retryable=True)

    async def read(self, task: str, *, after: int = 0, limit: int = 0) -> tuple[Artefact, ...]:
        """The entries of ``task`` after position ``after``, oldest first, at most ``limit``
        (0: all); a negative ``after`` counts from the end (``-20``: the last twenty)."""
        entries, _ = await self.span(task, after=after, limit=limit)
        return entries

    async def span(
        self, task: str, *, after: int = 0, limit: int = 0
    ) -> tuple[tuple[Artefact, ...], int]:
        """What :meth:`read` gives, and the transcript's length, from one transaction (one
        snapshot, and one begin and commit fewer than asking for each)."""

        def span(connection: Connection) -> tuple[tuple[Artefact, ...], int]:
            length = self._length(connection, task)
            start = max(0, length + after) if after < 0 else after
            query = (
                select(transcript.c.position, transcript.c.content)
                .where(transcript.c.task_key == task, transcript.c.position > start)
                .order_by(transcript.c.position)
            )
            if limit > 0:
                query = query.limit(limit)
            rows = connection.execute(query).all()
            return tuple(Artefact(key=task, version=p, content=c) for p, c in rows), length

        return await self.database.run(span, write=False)

    @classmethod
    async def read_once(cls, url: URL, task: str) -> tuple[Artefact, ...]:
        """Open the database at ``url``, read all of ``task``, close it: for a process that
        reads a transcript now and then (a client) and keeps no pool for it.

        Raises:
            DatabaseError: the database cannot be reached or read.
        """
        database = await open_database(url, pool_size=1, migrate=False, check=False)
        try:
            return await cls(database).read(task)
        finally:
            await database.aclose()

    async def length(self, task: str) -> int:
        """How many messages transcript ``task`` holds (its last position)."""
        return await self.database.run(lambda c: self._length(c, task), write=False)

    @staticmethod
    def _length(connection: Connection, task: str) -> int:
        last = connection.scalar(
            select(func.coalesce(func.max(transcript.c.position), 0)).where(
                transcript.c.task_key == task
            )
        )
        return int(last or 0)

    @staticmethod
    def _appended(connection: Connection, task: str, once: str) -> Artefact | None:
        found = (
            connection.execute(
                select(transcript.c.position, transcript.c.content).where(
                    transcript.c.task_key == task, transcript.c.idempotency_key == once
                )
            )
        ).first()
        return None if found is None else Artefact(key=task, version=found[0], content=found[1])

    def _insert_next(self, task: str, message: str, once: str | None) -> Executable:
        """Insert ``message`` at the next position of ``task`` (``max + 1``, read in the same
        statement) unless another writer holds that position or the idempotency key ``once``;
        no row back then."""
        columns = transcript.c
        next_row = select(
            cast(literal(task), Text),
            func.coalesce(func.max(columns.position), 0) + 1,
            cast(literal(message), Text),
            cast(literal(once), Text),
        ).where(columns.task_key == task)
        names = ("task_key", "position", "content", "idempotency_key")
        insert = self.database.insert_new(transcript).from_select(names, next_row)
        return insert.returning(columns.position)
