"""The SQL statements a piece of work sends: what a store's write costs in round trips."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from harness.storage import Database


@contextmanager
def statements_sent(database: Database) -> Iterator[list[str]]:
    """Every statement sent on ``database`` inside the block but BEGIN, COMMIT and ROLLBACK
    (on SQLite a transaction runs on the loop's own connection while the file is free)."""
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, sql: str, *_: object) -> None:
        if not sql.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            statements.append(sql)

    engine = database.inline.engine if database.inline else database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", seen)
