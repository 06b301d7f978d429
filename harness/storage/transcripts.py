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

from sqlalchemy import func, select
from sqlalchemy.engine import URL, Connection

from harness.domain import Artefact
from harness.storage.connect import open_database
from harness.storage.engine import Database, DatabaseError
from harness.storage.numbered import NumberedRows
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
        self._rows = NumberedRows(database, transcript, group="task_key", number="position")

    async def append(self, task: str, message: str, *, idempotency_key: str = "") -> Artefact:
        """Append ``message`` to transcript ``task``; once per ``idempotency_key``.

        Returns:
            The entry as stored; an earlier one when the key was used already.

        Raises:
            DatabaseError: the database failed, or the transcript stayed contended.
        """
        once = idempotency_key or None

        def append(connection: Connection) -> Artefact | None:
            # One statement in the common case: an append is what a message costs.
            return self._rows.add(connection, task, message, once, MAX_APPEND_ROUNDS)

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
