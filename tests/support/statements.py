"""The SQL statements a piece of work sends: what a store's write costs in round trips."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.engine.default import DefaultExecutionContext

from harness.storage import Database


@contextmanager
def statements_sent(database: Database) -> Iterator[list[str]]:
    """Every statement sent on ``database`` inside the block but BEGIN, COMMIT and ROLLBACK
    (on SQLite a transaction runs on the loop's own connection while the file is free)."""
    with _sent(database, compiled_only=False) as statements:
        yield statements


@contextmanager
def statements_compiled(database: Database) -> Iterator[list[str]]:
    """The statements sent inside the block that SQLAlchemy compiled anew (missed its cache
    of compiled statements): a statement built once and sent again is compiled once."""
    with _sent(database, compiled_only=True) as statements:
        yield statements


@contextmanager
def _sent(database: Database, *, compiled_only: bool) -> Iterator[list[str]]:
    statements: list[str] = []

    def seen(
        _conn: object, _cursor: object, sql: str, _params: object, context: object, *_: object
    ) -> None:
        if sql.lstrip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK")):
            return
        missed = isinstance(context, DefaultExecutionContext) and (
            context.cache_hit is not context.dialect.CACHE_HIT
        )
        if missed or not compiled_only:
            statements.append(sql)

    engine = database.inline.engine if database.inline else database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", seen)
