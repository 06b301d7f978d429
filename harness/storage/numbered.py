"""Numbered rows: a group's next number taken in the statement that inserts it, once per key.

An artefact's versions and a transcript's positions are the same shape: rows of a group
numbered 1, 2, 3, ..., each written at most once per idempotency key. The next number is
read in the INSERT itself (``max + 1``) and a row another writer took first is skipped
(``ON CONFLICT DO NOTHING``), so the common case is one statement on either engine, and a
repeat is that statement plus one look-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import Column, Table, Text, bindparam, cast, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

from harness.domain import Artefact
from harness.storage.engine import Database


@dataclass(frozen=True)
class NumberedRows:
    """``table``'s rows, grouped by ``group`` and numbered by ``number``; ``content`` and
    ``idempotency_key`` columns too."""

    database: Database
    table: Table
    group: str
    number: str

    def add(
        self, connection: Connection, group: str, content: str, once: str | None, rounds: int
    ) -> Artefact | None:
        """Insert ``content`` at ``group``'s next number, or find the row ``once`` made;
        ``None`` when other writers took the next number ``rounds`` times in a row."""
        for _ in range(rounds):
            values = {"group": group, "content": content, "once": once}
            number = connection.scalar(self._insert_next, values)
            if number is not None:
                return Artefact(key=group, version=int(number), content=content)
            if once is not None and (done := self.earlier(connection, group, once)):
                return done
        return None

    def earlier(self, connection: Connection, group: str, once: str) -> Artefact | None:
        """The row an earlier write with idempotency key ``once`` made, if any."""
        columns = self.table.c
        found = connection.execute(
            select(self._column(self.number), columns.content).where(
                self._column(self.group) == group, columns.idempotency_key == once
            )
        ).first()
        return None if found is None else Artefact(key=group, version=found[0], content=found[1])

    @cached_property
    def _insert_next(self) -> Executable:
        """The insert, with bound parameters: SQLAlchemy compiles it once (one with the values
        in it was keyed, compiled and cached on every append; issue 27)."""
        group = bindparam("group", type_=Text)
        next_row = select(
            cast(group, Text),
            func.coalesce(func.max(self._column(self.number)), 0) + 1,
            cast(bindparam("content", type_=Text), Text),
            cast(bindparam("once", type_=Text), Text),
        ).where(self._column(self.group) == group)
        names = (self.group, self.number, "content", "idempotency_key")
        insert = self.database.insert_new(self.table).from_select(names, next_row)
        return insert.returning(self._column(self.number))

    def _column(self, name: str) -> Column[object]:
        return self.table.c[name]
