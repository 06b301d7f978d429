"""Schema migrations (alembic): every process upgrades at open, one at a time.

The revisions live in ``harness/storage/migrations/versions``; ``python -m harness.storage
upgrade`` runs them by hand (for an operator who opens with ``HARNESS_DATABASE_MIGRATE=
false``), ``current`` says where a database is. On PostgreSQL an advisory lock makes two
workers that start together migrate one after the other; SQLite's write lock does the
same. A database whose revision this code does not know (a newer release migrated it)
is refused rather than written with an older idea of the tables.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Final

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import text
from sqlalchemy.engine import Connection

from harness.programs import program
from harness.storage.engine import Database, DatabaseError, unavailable

log = logging.getLogger(__name__)

VERSION_TABLE: Final = "harness_schema_version"
_LOCK_ID: Final = 0x7468_6172_6E65_7373 & 0x7FFF_FFFF_FFFF_FFFF  # "tharness", a bigint
_SCRIPTS: Final = Path(__file__).parent / "migrations"


def _config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest revision this code knows."""
    found = ScriptDirectory.from_config(_config()).get_current_head()
    assert found is not None  # the package ships its revisions
    return found


def _current(connection: Connection) -> str | None:
    context = MigrationContext.configure(connection, opts={"version_table": VERSION_TABLE})
    return context.get_current_revision()


def _known(scripts: ScriptDirectory, revision: str) -> bool:
    try:
        return scripts.get_revision(revision) is not None
    except CommandError:  # "no such revision"
        return False


def _upgrade(connection: Connection) -> None:
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": _LOCK_ID})
    now = _current(connection)
    scripts = ScriptDirectory.from_config(_config())
    if now is not None and not _known(scripts, now):
        problem = "is newer than this release knows; upgrade it, or use another database"
        raise DatabaseError(source=f"schema revision {now}", problem=problem)
    if now != scripts.get_current_head():
        command.upgrade(_config(connection), "head")
        log.info(
            "database schema migrated from %s to %s", now or "nothing", scripts.get_current_head()
        )


async def upgrade(db: Database) -> None:
    """Bring ``db``'s tables to :func:`head` (nothing to do when they are there).

    Raises:
        DatabaseError: it cannot be reached, or its revision is newer than this code.
    """
    try:
        async with db.engine.begin() as connection:
            await connection.run_sync(_upgrade)
    except DatabaseError:
        raise
    except Exception as error:  # the driver's and alembic's, at this one boundary
        raise unavailable(db, error) from None


async def current(db: Database) -> str | None:
    """The revision ``db`` is at (``None``: never migrated)."""
    try:
        async with db.engine.connect() as connection:
            return await connection.run_sync(_current)
    except Exception as error:  # as in upgrade
        raise unavailable(db, error) from None


async def require_head(db: Database) -> None:
    """Refuse ``db`` unless its tables are this release's (a process that does not migrate).

    Raises:
        DatabaseError: they are older or newer, or the database cannot be reached.
    """
    revision = await current(db)
    if revision != head():
        problem = (
            f"is not this release's ({head()}), and HARNESS_DATABASE_MIGRATE is off; "
            f"run {program('harness.storage')} upgrade"
        )
        raise DatabaseError(source=f"{db.describe()} schema {revision or 'none'}", problem=problem)
