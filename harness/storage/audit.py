"""The audit table in the harness's database: hook aborts, refusals and failures, kept durably.

An :class:`~harness.hooks.AuditLog` sink (issue 6): the manager hands it every abort,
refusal, transport error, ignored failure and dry-run verdict, and
``python -m harness.hooks audit`` or :meth:`~harness.hooks.AuditLog.recent` reads the
last ones back, from every worker that shares the database (issue 13). Artefacts are
:mod:`harness.storage.artefacts`'s; the table is :data:`harness.storage.schema.hook_audit`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from typing import Final, final

from sqlalchemy import insert, select
from sqlalchemy.engine import URL

from harness.hooks import AuditRecord
from harness.storage import Database, DatabaseError, open_database
from harness.storage.migrate import current
from harness.storage.schema import hook_audit

log = logging.getLogger(__name__)

QUEUE_CAPACITY: Final = 10_000
"""Records waiting to be written, at most; beyond it a record is dropped (and counted)."""
BATCH: Final = 200
"""Records per insert."""
CLOSE_SECONDS: Final = 10.0
"""How long closing waits for the database to take what is still queued."""
_RETRY_FIRST: Final = 0.1
_RETRY_MAX: Final = 5.0

_COLUMNS: Final = ("at", "kind", "point", "executor", "reason", "correlation_id", "task_id")


@final
class SqlAuditStore:
    """Audit records in ``hook_audit``, written in batches by a background task.

    :meth:`write` is synchronous (aborts surface on synchronous paths, ``abandon``)
    and must not block the event loop on I/O, so it only appends to a bounded queue,
    from any thread, and wakes the writer task (started on the first write inside a
    running loop). When the queue is full the record is dropped: counted in
    :attr:`dropped`, logged once, never raised and never waited for; the in-memory
    :class:`~harness.hooks.AuditLog` still has it. While the database is down the
    writer keeps the batch and retries with backoff. :meth:`aclose` writes what is
    queued (for up to ``close_seconds``) before the worker exits.

    Args:
        database: the open database (the process's one, shared with the artefact store).
        capacity: how many records may wait.
        batch: records per insert.
        close_seconds: how long :meth:`aclose` waits for the database.
    """

    def __init__(
        self,
        database: Database,
        *,
        capacity: int = QUEUE_CAPACITY,
        batch: int = BATCH,
        close_seconds: float = CLOSE_SECONDS,
    ) -> None:
        self.database = database
        self.dropped = 0
        self._capacity = capacity
        self._batch = batch
        self._close_seconds = close_seconds
        self._queue: deque[AuditRecord] = deque()
        self._guard = threading.Lock()  # write() may come from another thread
        self._writing = asyncio.Lock()  # one batch in flight: the table keeps the order
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._writer: asyncio.Task[None] | None = None

    def write(self, record: AuditRecord) -> None:
        """Queue ``record`` (its reason is already redacted); never blocks, never raises."""
        with self._guard:
            if len(self._queue) >= self._capacity:
                self.dropped += 1
                if self.dropped == 1:
                    log.warning(
                        "audit queue full (%d records): dropping records until the "
                        "database catches up; they stay in memory only",
                        self._capacity,
                    )
                return
            self._queue.append(record)
        self._kick()

    @property
    def pending(self) -> int:
        """Records queued and not yet written."""
        with self._guard:
            return len(self._queue)

    async def flush(self) -> None:
        """Write every queued record now.

        Raises:
            DatabaseError: the database failed (the records stay queued).
        """
        while self.pending:
            await self._write_batch()

    async def last(self, count: int = 20, *, task_id: str | None = None) -> list[AuditRecord]:
        """The ``count`` most recent records of every worker, oldest first; ``task_id``'s only
        when given. This process's queued records are written first, so it reads its own.

        Raises:
            DatabaseError: the database failed.
        """
        await self.flush()
        return await read_audit(self.database, count, task_id=task_id)

    async def aclose(self) -> None:
        """Write what is queued (for up to ``close_seconds``), then stop the writer task.

        What the database would not take in time is logged as lost, with the drops.
        """
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._drain_at_close(), self._close_seconds)
        if self._writer_alive() and self._loop is asyncio.get_running_loop():
            assert self._writer is not None
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
            self._writer = None
        lost = self.pending
        if lost or self.dropped:
            log.error(
                "audit: %d records not written at close (database %s unavailable), "
                "%d dropped while the queue was full",
                lost,
                self.database.describe(),
                self.dropped,
            )

    def _kick(self) -> None:
        """Start the writer task in the running loop, or wake it (from any thread)."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread: the writer's, or the next flush's
            running = None
        if not self._writer_alive():
            if running is None:
                return
            self._loop, self._wake = running, asyncio.Event()
            self._writer = running.create_task(self._run(), name="audit-writer")
        assert self._loop is not None and self._wake is not None
        with contextlib.suppress(RuntimeError):  # its loop closed just now: written at close
            self._loop.call_soon_threadsafe(self._wake.set)

    def _writer_alive(self) -> bool:
        return (
            self._writer is not None
            and not self._writer.done()
            and self._loop is not None
            and not self._loop.is_closed()
        )

    async def _run(self) -> None:
        assert self._wake is not None
        delay, failing = _RETRY_FIRST, False
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.pending:
                try:
                    await self._write_batch()
                except DatabaseError as error:
                    if not failing:
                        log.warning("audit records wait for the database: %s", error)
                    failing = True
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, _RETRY_MAX)
                    continue
                if failing:
                    log.info("audit records written again to %s", self.database.describe())
                delay, failing = _RETRY_FIRST, False

    async def _drain_at_close(self) -> None:
        delay = _RETRY_FIRST
        while self.pending:
            try:
                await self._write_batch()
            except DatabaseError:
                await asyncio.sleep(delay)
                delay = min(delay * 2, _RETRY_MAX)

    async def _write_batch(self) -> None:
        """Insert the oldest queued records in one statement; they stay queued if it fails."""
        async with self._writing:
            with self._guard:
                batch = [self._queue[i] for i in range(min(self._batch, len(self._queue)))]
            if not batch:
                return
            rows = [{name: getattr(record, name) for name in _COLUMNS} for record in batch]
            async with self.database.transaction() as connection:
                await connection.execute(insert(hook_audit), rows)
            with self._guard:
                for _ in batch:
                    self._queue.popleft()


async def read_audit(
    database: Database, count: int = 20, *, task_id: str | None = None
) -> list[AuditRecord]:
    """The ``count`` most recent records in ``database``, oldest first (``task_id``'s only).

    Raises:
        DatabaseError: the database failed.
    """
    query = select(*(hook_audit.c[name] for name in _COLUMNS))
    if task_id is not None:
        query = query.where(hook_audit.c.task_id == task_id)
    query = query.order_by(hook_audit.c.id.desc()).limit(max(0, count))
    async with database.transaction() as connection:
        rows = (await connection.execute(query)).all()
    return [AuditRecord(*row) for row in reversed(rows)]


async def recent_audit(
    url: URL, count: int = 20, *, task_id: str | None = None
) -> list[AuditRecord]:
    """The last audit records in the database at ``url`` (what the hooks CLI prints).

    Opens the database without migrating it (a reader changes nothing); one never
    migrated has recorded nothing.

    Args:
        url: the database (``Settings().database``).
        count: how many.
        task_id: only this task's records.

    Returns:
        Oldest first; empty when nothing was recorded yet.

    Raises:
        DatabaseError: it cannot be reached.
    """
    database = await open_database(url, migrate=False, check=False)
    try:
        if await current(database) is None:
            return []
        return await read_audit(database, count, task_id=task_id)
    finally:
        await database.aclose()
