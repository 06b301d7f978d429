"""Latency aggregates: counts by decision and a fixed log-scale histogram, mergeable by addition.

The buckets are the same on every worker and in every release of this table (bucket ``i``
holds calls of at most ``FIRST_MS * 2 ** (i / PER_DOUBLING)`` ms), so two workers' aggregates,
or a day of 10-second ones, merge by adding counts, and a percentile read from the merged
histogram is within one bucket (about 19 %) of the exact one, never above the maximum seen.
What gathers them is :mod:`harness.hooks.monitors.executor_stats`; where they are kept is
:mod:`harness.storage.executor_stats`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final, final

from harness.hooks.decisions import DECISIONS

FIRST_MS: Final = 0.01
"""Upper bound of bucket 0 (10 µs): anything faster is counted there."""
PER_DOUBLING: Final = 4
"""Buckets per doubling of latency: each bound is 2 ** (1/4) ≈ 1.19 times the previous one."""
BUCKETS: Final = 100
"""Bucket 99 ends at ~335 s and also holds anything slower (the maximum is kept exactly)."""

ExecutorKey = tuple[str, str, str]
"""``(point, executor, kind)``: what one stats line is about."""


def bucket_of(ms: float) -> int:
    """The bucket a call of ``ms`` milliseconds is counted in."""
    if ms <= FIRST_MS:
        return 0
    return min(math.ceil(math.log2(ms / FIRST_MS) * PER_DOUBLING), BUCKETS - 1)


def upper_bound(bucket: int) -> float:
    """The largest latency (ms) bucket ``bucket`` holds."""
    return FIRST_MS * 2 ** (bucket / PER_DOUBLING)


@final
@dataclass(frozen=True)
class StatsRow:
    """One worker's aggregate for one executor over ``[since, at]``: a row of the stats table."""

    worker: str
    at: float
    since: float
    point: str
    executor: str
    kind: str
    counts: Mapping[str, int]
    """Calls by decision (every word of :data:`~harness.hooks.decisions.DECISIONS`)."""
    buckets: Mapping[int, int]
    """Sparse histogram: bucket -> calls."""
    max_ms: float
    total_ms: float

    @property
    def key(self) -> ExecutorKey:
        """What the row is about."""
        return (self.point, self.executor, self.kind)


@final
class LatencyAggregate:
    """One executor's calls: counts by decision index, histogram, maximum and total time."""

    __slots__ = ("buckets", "counts", "max_ms", "total_ms")

    def __init__(self) -> None:
        self.counts = [0] * len(DECISIONS)
        self.buckets: dict[int, int] = {}
        self.max_ms = 0.0
        self.total_ms = 0.0

    def add(self, decision: int, ms: float) -> None:
        """Count one call, decided ``DECISIONS[decision]``, that took ``ms``."""
        self.counts[decision] += 1
        bucket = bucket_of(ms)
        self.buckets[bucket] = self.buckets.get(bucket, 0) + 1
        self.total_ms += ms
        if ms > self.max_ms:
            self.max_ms = ms

    def merge(self, other: LatencyAggregate) -> None:
        """Add ``other``'s calls to these."""
        for i, count in enumerate(other.counts):
            self.counts[i] += count
        for bucket, count in other.buckets.items():
            self.buckets[bucket] = self.buckets.get(bucket, 0) + count
        self.total_ms += other.total_ms
        self.max_ms = max(self.max_ms, other.max_ms)

    def add_row(self, row: StatsRow) -> None:
        """Add a stored row's calls to these."""
        for i, decision in enumerate(DECISIONS):
            self.counts[i] += row.counts.get(decision, 0)
        for bucket, count in row.buckets.items():
            self.buckets[bucket] = self.buckets.get(bucket, 0) + count
        self.total_ms += row.total_ms
        self.max_ms = max(self.max_ms, row.max_ms)

    @property
    def calls(self) -> int:
        """Calls counted."""
        return sum(self.counts)

    def percentile(self, q: float) -> float:
        """The latency (ms) at or under which a fraction ``q`` of the calls finished.

        The upper bound of the bucket holding the call of rank ``ceil(q * calls)``, capped by
        the maximum seen; 0 with no call.
        """
        total = self.calls
        if total == 0:
            return 0.0
        rank = max(1, math.ceil(q * total))
        seen = 0
        for bucket in sorted(self.buckets):
            seen += self.buckets[bucket]
            if seen >= rank:
                return min(upper_bound(bucket), self.max_ms)
        return self.max_ms

    def row(self, *, worker: str, at: float, since: float, key: ExecutorKey) -> StatsRow:
        """This aggregate as a row of the stats table."""
        point, executor, kind = key
        return StatsRow(
            worker=worker,
            at=at,
            since=since,
            point=point,
            executor=executor,
            kind=kind,
            counts=dict(zip(DECISIONS, self.counts, strict=True)),
            buckets=dict(self.buckets),
            max_ms=self.max_ms,
            total_ms=self.total_ms,
        )


@final
@dataclass
class ExecutorSummary:
    """Every worker's rows for one executor, merged: what a stats line shows."""

    key: ExecutorKey
    aggregate: LatencyAggregate = field(default_factory=LatencyAggregate)
    workers: set[str] = field(default_factory=set)

    def count(self, decision: str) -> int:
        """Calls decided ``decision``."""
        return self.aggregate.counts[DECISIONS.index(decision)]


def summarise(rows: Iterable[StatsRow]) -> list[ExecutorSummary]:
    """Merge ``rows`` (any workers, any windows) per executor; the slowest p99 first.

    Ties (and executors without calls) keep a stable order: point, then executor name.
    """
    merged: dict[ExecutorKey, ExecutorSummary] = {}
    for row in rows:
        summary = merged.get(row.key)
        if summary is None:
            summary = merged[row.key] = ExecutorSummary(row.key)
        summary.aggregate.add_row(row)
        summary.workers.add(row.worker)
    return sorted(merged.values(), key=lambda s: (-s.aggregate.percentile(0.99), s.key))
