"""Blobs: values kept under a key, written and read many keys at a time.

The agent loop's messages travel to the activities that need them by reference (issue 27):
the workflow sends a message whole once, the activity keeps it here, and later activities
of the task read it back by its key. A model call reads a whole window of messages, so a
read takes every key in one statement, and a write keeps every new one in one statement.
Rows sit in the ``artefact`` table at version 1 (as the payload store's do). A second write
of a key (a retry, a worker on another host) replaces the first and never fails: the latest
write of a key is what it holds (a step run again after a lost workflow task may send a
number new content, :mod:`harness.temporal.refs`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Final, final

from sqlalchemy import select
from sqlalchemy.engine import Connection

from harness.storage.engine import Database
from harness.storage.schema import artefact

BATCH: Final = 500
"""Keys per statement: SQLite's bound parameters are limited (32,766 since 3.32, but
older builds say 999), and a window of messages is far smaller anyway."""


@final
class BlobStore:
    """Values by key in the ``artefact`` table of a :class:`Database`, the latest write's.

    Args:
        database: the process's open database (shared with its other stores).
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    async def put_many(self, values: Mapping[str, str]) -> None:
        """Keep each value under its key, in place of what the key held."""
        if not values:
            return
        rows = [
            {"key": key, "version": 1, "content": content, "idempotency_key": None}
            for key, content in values.items()
        ]

        latest = self.database.insert_latest(artefact, ("key", "version"), ("content",))

        def put(connection: Connection) -> None:
            for start in range(0, len(rows), BATCH):
                connection.execute(latest, rows[start : start + BATCH])

        await self.database.run(put)

    async def get_many(self, keys: Collection[str]) -> dict[str, str]:
        """The values kept under ``keys``, by key; a key not kept is left out."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}

        def get(connection: Connection) -> dict[str, str]:
            found: dict[str, str] = {}
            for start in range(0, len(wanted), BATCH):
                batch = wanted[start : start + BATCH]
                query = select(artefact.c.key, artefact.c.content).where(
                    artefact.c.key.in_(batch), artefact.c.version == 1
                )
                found.update((key, content) for key, content in connection.execute(query))
            return found

        return await self.database.run(get, write=False)
