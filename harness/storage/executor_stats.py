"""The executor stats table in the harness's database: every worker's flushed aggregates.

The :class:`~harness.hooks.monitors.executor_stats.StatsSink` of a worker (issue 15, point 4):
each flush inserts one row per executor called in the window, so workers on different hosts
never write the same row, and :func:`executor_stats` (``python -m harness.hooks stats``) adds
up every worker's rows since a time. Rows older than ``retention`` are deleted by the writers,
at most once an hour each. The table is :data:`harness.storage.schema.hook_executor_stats`; the
aggregates and their merge are :mod:`harness.hooks.latency`'s.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Final, final

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import URL

from harness.hooks import StatsRow
from harness.storage import Database, open_database
from harness.storage.migrate import current
from harness.storage.schema import hook_executor_stats

RETENTION_SECONDS: Final = 7 * 24 * 3600.0
"""How long rows are kept (a week of 10-second windows per executor per worker)."""
PRUNE_EVERY: Final = 3600.0
"""Seconds between one writer's deletions of expired rows."""


@final
class SqlStatsStore:
    """Executor stats rows in ``hook_executor_stats``, on the process's one database.

    Args:
        database: the open database (the worker's, shared with the audit and the artefacts).
        retention: seconds a row is kept.
        clock: wall-clock seconds, for the retention; a provider so tests can fix it.
    """

    def __init__(
        self,
        database: Database,
        *,
        retention: float = RETENTION_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.database = database
        self.retention = retention
        self._clock = clock
        self._pruned = 0.0

    async def write_stats(self, rows: Sequence[StatsRow]) -> None:
        """Insert ``rows`` in one transaction (and delete expired ones, hourly).

        Raises:
            DatabaseError: the database failed; nothing was written.
        """
        if not rows:
            return
        values = [
            {
                "at": r.at,
                "since": r.since,
                "worker": r.worker,
                "point": r.point,
                "executor": r.executor,
                "kind": r.kind,
                "counts": json.dumps(dict(r.counts)),
                "buckets": json.dumps({str(b): c for b, c in sorted(r.buckets.items())}),
                "max_ms": r.max_ms,
                "total_ms": r.total_ms,
            }
            for r in rows
        ]
        now = self._clock()
        async with self.database.transaction() as connection:
            await connection.execute(insert(hook_executor_stats), values)
            if now - self._pruned >= PRUNE_EVERY:
                expired = hook_executor_stats.c.at < now - self.retention
                await connection.execute(delete(hook_executor_stats).where(expired))
        if now - self._pruned >= PRUNE_EVERY:
            self._pruned = now


async def read_stats(database: Database, since: float) -> list[StatsRow]:
    """Every worker's rows flushed at or after ``since`` (seconds since the epoch).

    Raises:
        DatabaseError: the database failed.
    """
    table = hook_executor_stats
    query = (
        select(
            table.c.worker,
            table.c.at,
            table.c.since,
            table.c.point,
            table.c.executor,
            table.c.kind,
            table.c.counts,
            table.c.buckets,
            table.c.max_ms,
            table.c.total_ms,
        )
        .where(table.c.at >= since)
        .order_by(table.c.id)
    )
    async with database.transaction() as connection:
        found = (await connection.execute(query)).all()
    return [
        StatsRow(
            worker=w,
            at=at,
            since=start,
            point=point,
            executor=executor,
            kind=kind,
            counts=json.loads(counts),
            buckets=_buckets(buckets),
            max_ms=max_ms,
            total_ms=total_ms,
        )
        for w, at, start, point, executor, kind, counts, buckets, max_ms, total_ms in found
    ]


async def executor_stats(url: URL, since: float) -> list[StatsRow]:
    """The rows since ``since`` in the database at ``url`` (what the hooks CLI merges).

    Opens the database without migrating it (a reader changes nothing); one never migrated
    (or migrated before the table existed) has recorded nothing.

    Raises:
        DatabaseError: it cannot be reached.
    """
    database = await open_database(url, migrate=False, check=False)
    try:
        if await current(database) is None:
            return []
        return await read_stats(database, since)
    finally:
        await database.aclose()


def _buckets(text: str) -> dict[int, int]:
    return {int(bucket): count for bucket, count in json.loads(text).items()}
