"""The bot's durable memory: which Slack events it has seen and which thread belongs to which task.

SQLite under the data dir, so a restart or a second bot process does not handle a
retried event again (Slack retries for up to an hour). Claims are atomic
(``INSERT OR IGNORE``): of two processes racing on one event, exactly one wins.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Final, final

from harness.sqlite import open_database

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS seen (key TEXT PRIMARY KEY, at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS thread (
    place TEXT PRIMARY KEY,
    task_id TEXT NOT NULL
);
"""
KEEP_SECONDS: Final = 2 * 3600.0
"""Longer than Slack's retry window (about an hour), so no retry outlives its record."""


@final
class Ledger:
    """Seen event keys and thread -> task bindings in one SQLite file.

    Args:
        path: the database file; its directory is created.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = open_database(path, _SCHEMA)

    async def claim(self, keys: Iterable[str]) -> bool:
        """Record ``keys``; ``True`` if none of them was seen before (the caller handles it)."""
        return await asyncio.to_thread(self._claim, tuple(keys), time.time())

    async def bind(self, place: str, task_id: str) -> None:
        """Remember that the thread at ``place`` (``team/channel/thread_ts``) is ``task_id``'s."""
        await asyncio.to_thread(self._write, "INSERT OR REPLACE INTO thread VALUES (?, ?)",
                                (place, task_id))  # fmt: skip

    async def task_of(self, place: str) -> str | None:
        """The task bound to the thread at ``place``, if any."""
        return await asyncio.to_thread(self._task_of, place)

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    def _claim(self, keys: tuple[str, ...], now: float) -> bool:
        if not keys:
            return True
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                fresh = all(
                    self._db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?)", (k, now)).rowcount
                    == 1
                    for k in keys
                )
                if fresh:
                    self._db.execute("DELETE FROM seen WHERE at < ?", (now - KEEP_SECONDS,))
                    self._db.execute("COMMIT")
                else:
                    # A key was seen: keep the record as it was (the first claim stands).
                    self._db.execute("ROLLBACK")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return fresh

    def _write(self, sql: str, params: tuple[str, ...]) -> None:
        with self._lock:
            self._db.execute(sql, params)

    def _task_of(self, place: str) -> str | None:
        with self._lock:
            row = self._db.execute(
                "SELECT task_id FROM thread WHERE place = ?", (place,)
            ).fetchone()
        return None if row is None else str(row[0])
