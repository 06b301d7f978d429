"""The audit table beside the artefact store: hook aborts, refusals and failures, kept on disk.

An :class:`~harness.hooks.AuditLog` sink (issue 6): the manager writes every abort,
refusal, transport error, ignored failure and dry-run verdict here, and
``python -m harness.hooks audit`` or ``/status`` reads the last ones back. It lives in
the artefact store's SQLite file, in its own table; artefacts are :mod:`harness.store`'s.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Final, final

from harness.hooks import AuditRecord
from harness.sqlite import open_database

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS hook_audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    point TEXT NOT NULL,
    executor TEXT NOT NULL,
    reason TEXT NOT NULL,
    correlation_id TEXT NOT NULL,
    task_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS hook_audit_task ON hook_audit (task_id, id);
"""

_COLUMNS: Final = "at, kind, point, executor, reason, correlation_id, task_id"


@final
class SqliteAuditStore:
    """Audit records in a table of a SQLite file (WAL), written synchronously.

    Writes are synchronous because aborts also surface on synchronous paths
    (``abandon``); one small insert on a failure path is cheaper than a thread hop.

    Args:
        path: the database file (usually the artefact store's); its directory is created.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db = open_database(path, _SCHEMA)

    def write(self, record: AuditRecord) -> None:
        """Append ``record`` (its reason is already redacted)."""
        with self._lock:
            self._db.execute(
                f"INSERT INTO hook_audit ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (record.at, record.kind, record.point, record.executor, record.reason,
                 record.correlation_id, record.task_id),
            )  # fmt: skip

    def last(self, count: int = 20, *, task_id: str | None = None) -> list[AuditRecord]:
        """The ``count`` most recent records, oldest first; only ``task_id``'s when given."""
        where, args = ("WHERE task_id = ?", (task_id,)) if task_id is not None else ("", ())
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM hook_audit {where} ORDER BY id DESC LIMIT ?",
                (*args, max(0, count)),
            ).fetchall()
        return [AuditRecord(*row) for row in reversed(rows)]

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()


def recent_audit(path: Path, count: int = 20, *, task_id: str | None = None) -> list[AuditRecord]:
    """The last audit records in the store at ``path`` (what ``/status`` can show).

    Args:
        path: the SQLite file (``Settings().artefact_store_path``).
        count: how many.
        task_id: only this task's records.

    Returns:
        Oldest first; empty when nothing was recorded yet.
    """
    store = SqliteAuditStore(path)
    try:
        return store.last(count, task_id=task_id)
    finally:
        store.close()
