"""Opening the harness's SQLite files: one place for the pragmas every store needs.

Stores (artefacts, audit, the bot's event ledger) each own their schema and
queries; what they share is how a file is opened so several processes (a second
worker, the bot, a test) can use it at once.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path


def open_database(path: Path, schema: str, *, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """Open (creating it and its directory) a WAL-mode SQLite file and apply ``schema``.

    The connection is in autocommit mode and may be used from worker threads; callers
    serialise access with their own lock. ``busy_timeout`` makes a writer wait for
    another process's write instead of failing at once.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(f"PRAGMA synchronous={synchronous}")
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db
