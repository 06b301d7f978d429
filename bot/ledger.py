"""Where the bot's ledger lives: the bot-specific half of :mod:`harness.storage.ledger`.

The tables and their claims are storage's; the bot only picks the database: the
deployment's shared one, or a SQLite file of its own (``bot-ledger.sqlite3``).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import URL

from harness.config import Settings
from harness.storage import database_url


def ledger_database(harness: Settings, sqlite_file: Path) -> URL:
    """Where the bot's ledger lives: the deployment's ``HARNESS_DATABASE_URL``, or ``sqlite_file``.

    The bot's own SQLite file (``bot-ledger.sqlite3``), not the worker's, when unset:
    the bot and a worker on one laptop need not share a file.
    """
    explicit = harness.database_url.get_secret_value() if harness.database_url else ""
    return database_url(explicit, sqlite_file)
