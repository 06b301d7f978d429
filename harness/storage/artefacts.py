"""The artefact store: versioned task artefacts (transcripts, attachments) keyed by string.

Task *state* is durable in Temporal; this store holds the harness's own artefacts,
read and written only by the default bodies of ``persistence.read`` and
``persistence.write`` (:mod:`harness.bodies.persistence`) and the artefact tools. It
lives in the harness's database (:mod:`harness.storage`: a SQLite file, or PostgreSQL that
every worker of a deployment shares). Writes are idempotent per idempotency key,
because activities run at least once, also when two workers run the same write.
"""

from __future__ import annotations

from typing import Final, Protocol, final

from sqlalchemy import select
from sqlalchemy.engine import Connection

from harness.domain import Artefact
from harness.storage import Database, DatabaseError
from harness.storage.numbered import NumberedRows
from harness.storage.schema import artefact

MAX_WRITE_ROUNDS: Final = 1000
"""How often one write may lose the next version to another writer before it gives up; each
round some writer wins, so only a thousand writers at once on one key would exhaust it."""


class ArtefactStore(Protocol):
    """Versioned artefacts: every write adds a version, reads see the latest (or a given one)."""

    async def read(self, key: str, version: int | None = None) -> Artefact | None:
        """The artefact at ``version`` (latest when ``None``), or ``None`` if there is none."""
        ...

    async def write(self, key: str, content: str, *, idempotency_key: str = "") -> Artefact:
        """Store a new version; a repeated ``idempotency_key`` returns the version it wrote."""
        ...

    async def versions(self, key: str) -> tuple[Artefact, ...]:
        """Every version of ``key``, oldest first."""
        ...


@final
class SqlArtefactStore:
    """:class:`ArtefactStore` in the ``artefact`` table of a :class:`~harness.storage.Database`.

    The next version is ``max + 1``, read and inserted in one statement with ``ON CONFLICT
    DO NOTHING``: a writer on another host that took that version (or this idempotency
    key) first makes the insert a no-op instead of an error, and this writer re-reads,
    returning the winner's row for its key or trying the next version. Every read is a fresh
    statement, so on PostgreSQL (read committed) it sees what the winner committed.

    Args:
        database: the open database (the process's one, shared with the audit store).
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self._rows = NumberedRows(database, artefact, group="key", number="version")

    async def read(self, key: str, version: int | None = None) -> Artefact | None:
        """See :meth:`ArtefactStore.read`."""
        query = select(artefact.c.version, artefact.c.content).where(artefact.c.key == key)
        if version is None:
            query = query.order_by(artefact.c.version.desc()).limit(1)
        else:
            query = query.where(artefact.c.version == version)
        row = await self.database.run(lambda c: c.execute(query).first(), write=False)
        return None if row is None else Artefact(key=key, version=row[0], content=row[1])

    async def write(self, key: str, content: str, *, idempotency_key: str = "") -> Artefact:
        """See :meth:`ArtefactStore.write`.

        Raises:
            DatabaseError: the database failed, or the key stayed contended for
                :data:`MAX_WRITE_ROUNDS` rounds (retryable: the activity tries again).
        """
        once = idempotency_key or None

        def write(connection: Connection) -> Artefact | None:
            return self._rows.add(connection, key, content, once, MAX_WRITE_ROUNDS)

        if (stored := await self.database.run(write)) is not None:
            return stored
        problem = f"artefact {key!r} stayed contended for {MAX_WRITE_ROUNDS} rounds; try again"
        raise DatabaseError(source=self.database.describe(), problem=problem, retryable=True)

    async def versions(self, key: str) -> tuple[Artefact, ...]:
        """See :meth:`ArtefactStore.versions`."""
        query = (
            select(artefact.c.version, artefact.c.content)
            .where(artefact.c.key == key)
            .order_by(artefact.c.version)
        )
        rows = await self.database.run(lambda c: c.execute(query).all(), write=False)
        return tuple(Artefact(key=key, version=v, content=c) for v, c in rows)
