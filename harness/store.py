"""The artefact store: versioned task artefacts (transcripts, attachments) keyed by string.

Task *state* is durable in Temporal; this store holds the harness's own artefacts,
read and written only by the default bodies of ``persistence.read`` and
``persistence.write`` (:mod:`harness.bodies.persistence`). Writes are idempotent per
idempotency key, because activities run at least once.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Final, Protocol, final

from harness.domain import Artefact
from harness.sqlite import open_database

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS artefact (
    key TEXT NOT NULL,
    version INTEGER NOT NULL,
    content TEXT NOT NULL,
    idempotency_key TEXT,
    PRIMARY KEY (key, version)
);
CREATE UNIQUE INDEX IF NOT EXISTS artefact_once ON artefact (key, idempotency_key);
"""


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
class SqliteArtefactStore:
    """:class:`ArtefactStore` in one SQLite file (WAL), shared safely by several processes.

    sqlite3 blocks, so each call runs in a thread (``asyncio.to_thread``) on one
    connection guarded by a lock; WAL lets readers in other processes (a second
    worker, a test) read while this one writes.

    Args:
        path: the database file; its directory is created.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = open_database(path, _SCHEMA)

    async def read(self, key: str, version: int | None = None) -> Artefact | None:
        """See :meth:`ArtefactStore.read`."""
        return await asyncio.to_thread(self._read, key, version)

    async def write(self, key: str, content: str, *, idempotency_key: str = "") -> Artefact:
        """See :meth:`ArtefactStore.write`."""
        return await asyncio.to_thread(self._write, key, content, idempotency_key or None)

    async def versions(self, key: str) -> tuple[Artefact, ...]:
        """See :meth:`ArtefactStore.versions`."""
        return await asyncio.to_thread(self._versions, key)

    def close(self) -> None:
        """Close the connection; the store is unusable afterwards."""
        with self._lock:
            self._db.close()

    def _read(self, key: str, version: int | None) -> Artefact | None:
        with self._lock:
            if version is None:
                row = self._db.execute(
                    "SELECT version, content FROM artefact WHERE key = ?"
                    " ORDER BY version DESC LIMIT 1",
                    (key,),
                ).fetchone()
            else:
                row = self._db.execute(
                    "SELECT version, content FROM artefact WHERE key = ? AND version = ?",
                    (key, version),
                ).fetchone()
        return None if row is None else Artefact(key=key, version=row[0], content=row[1])

    def _write(self, key: str, content: str, idempotency_key: str | None) -> Artefact:
        with self._lock:
            # IMMEDIATE takes the write lock first, so the next version is computed and
            # inserted atomically even with another process writing the same key.
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if idempotency_key is not None:
                    row = self._db.execute(
                        "SELECT version, content FROM artefact"
                        " WHERE key = ? AND idempotency_key = ?",
                        (key, idempotency_key),
                    ).fetchone()
                    if row is not None:
                        self._db.execute("COMMIT")
                        return Artefact(key=key, version=row[0], content=row[1])
                (latest,) = self._db.execute(
                    "SELECT COALESCE(MAX(version), 0) FROM artefact WHERE key = ?", (key,)
                ).fetchone()
                self._db.execute(
                    "INSERT INTO artefact (key, version, content, idempotency_key)"
                    " VALUES (?, ?, ?, ?)",
                    (key, latest + 1, content, idempotency_key),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return Artefact(key=key, version=latest + 1, content=content)

    def _versions(self, key: str) -> tuple[Artefact, ...]:
        with self._lock:
            rows = self._db.execute(
                "SELECT version, content FROM artefact WHERE key = ? ORDER BY version", (key,)
            ).fetchall()
        return tuple(Artefact(key=key, version=v, content=c) for v, c in rows)
