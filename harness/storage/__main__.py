"""``python -m harness.storage upgrade|current``: migrate the configured database, or say where.

Reads ``HARNESS_DATABASE_URL`` (or the worker's SQLite file) as the worker does; prints
the database without its password.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from harness.config import Settings
from harness.storage.connect import open_database
from harness.storage.engine import DatabaseError
from harness.storage.migrate import current, head


async def _run(command: str) -> int:
    settings = Settings()
    db = await open_database(settings.database, migrate=command == "upgrade", check=False)
    try:
        revision = await current(db)
        print(f"{db.describe()}: schema {revision or 'none'} (this release: {head()})")
        return 0 if revision == head() else 1
    finally:
        await db.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; 0 when the database is at this release's schema."""
    parser = argparse.ArgumentParser(prog="python -m harness.storage")
    parser.add_argument(
        "command",
        choices=("upgrade", "current"),
        help="upgrade: migrate to this release's schema; current: print where it is",
    )
    args = parser.parse_args(argv)
    try:
        return asyncio.run(_run(args.command))
    except DatabaseError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
