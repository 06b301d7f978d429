"""Executor stats: per executor, calls by decision and a latency histogram ("which hook is slow").

An executor monitor (``around="executor"``) that aggregates in memory, with no lock and no I/O
on the call path: counts by decision (:mod:`harness.hooks.decisions`) and fixed log-scale
latency buckets, so aggregates from any number of workers merge by adding them up. Every
``interval`` seconds, and at close, it hands what it gathered since the last flush to a
:class:`StatsSink` (the harness database's table, :mod:`harness.storage.executor_stats`), where
``python -m harness.hooks stats`` merges every worker's rows. With a meter it also records each
call's milliseconds on a histogram, for the worker's Prometheus endpoint. The percentile
arithmetic is :mod:`harness.hooks.latency`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, final

from harness.hooks.contexts import HookContext
from harness.hooks.decisions import DECISIONS, decision_of, passed_over
from harness.hooks.latency import ExecutorKey, LatencyAggregate, StatsRow
from harness.hooks.monitor import CallProceed, ExecutorCall, Monitored, MonitorHandle

log = logging.getLogger(__name__)

FLUSH_SECONDS: Final = 10.0
"""How often a worker writes its aggregate (and at close)."""
LATENCY_METRIC: Final = "harness_executor_latency_ms"
"""Executor call latency in milliseconds, by ``point``, ``executor``, ``kind`` and ``decision``
(labels are the hooks file's own names and fixed words: bounded, no data)."""
LATENCY_BUCKETS_MS: Final = (
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    25.0,
    50.0,
    100.0,
    250.0,
    500.0,
    1000.0,
    2500.0,
    5000.0,
    10000.0,
    30000.0,
)
"""The histogram's bucket bounds on the metrics endpoint (the worker's runtime sets them)."""

_INDEX: Final[dict[str, int]] = {d: i for i, d in enumerate(DECISIONS)}
_PASS, _REWRITE, _FAILED_OPEN = _INDEX["pass"], _INDEX["rewrite"], _INDEX["failed-open"]


class StatsSink(Protocol):
    """Where a worker's aggregates go: one call per flush, rows added to what is there."""

    async def write_stats(self, rows: Sequence[StatsRow]) -> None:
        """Store ``rows`` (raises on failure: they are kept and written with the next flush)."""
        ...


Attributes = Mapping[str, str | int | float | bool]


class Histogram(Protocol):
    """A float histogram (``temporalio.common.MetricHistogramFloat`` is one)."""

    def record(self, value: float, additional_attributes: Attributes | None = None) -> None: ...


class HistogramMeter(Protocol):
    """Makes float histograms (``temporalio.common.MetricMeter`` does)."""

    def create_histogram_float(
        self, name: str, description: str | None = None, unit: str | None = None
    ) -> Histogram: ...


def worker_id() -> str:
    """This process, as its rows name it: host, pid and a random suffix (pids are reused)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@final
class ExecutorStats:
    """Counts and times every executor call; flushes the aggregate to ``sink`` periodically.

    Args:
        sink: where aggregates go; ``None`` keeps them in memory only (:meth:`snapshot`).
        interval: seconds between flushes.
        meter: records each call on the :data:`LATENCY_METRIC` histogram when given.
        clock: wall-clock seconds (the rows' times); a provider so tests can fix it.
    """

    def __init__(
        self,
        sink: StatsSink | None = None,
        *,
        interval: float = FLUSH_SECONDS,
        meter: HistogramMeter | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if interval <= 0:
            raise ValueError("interval must be positive")
        self.sink = sink
        self.interval = interval
        self.worker = worker_id()
        self.clock = clock
        self._window: dict[ExecutorCall, LatencyAggregate] = {}
        self._since = clock()
        self._histogram = (
            meter.create_histogram_float(LATENCY_METRIC, "Hook executor call latency", "ms")
            if meter is not None
            else None
        )
        self._flusher: asyncio.Task[None] | None = None
        self._closed = False

    async def __call__(
        self, call: ExecutorCall, ctx: HookContext, proceed: CallProceed, /
    ) -> HookContext | None:
        """Run the executor of ``call``; count its decision and its time."""
        start = time.perf_counter()
        try:
            out = await proceed()
        except BaseException as error:
            self._count(call, _INDEX[decision_of(None, error)], start)
            raise
        # decision_of, inlined for the two commonest outcomes: this runs on every call.
        if out is not None:
            self._count(call, _REWRITE, start)
        else:
            self._count(call, _PASS if passed_over() is None else _FAILED_OPEN, start)
        return out

    def _count(self, call: ExecutorCall, decision: int, start: float) -> None:
        ms = (time.perf_counter() - start) * 1000
        # Keyed by the call object (an identity hash, no tuple to build); the rows merge the
        # objects of one executor (a chain changed since) by their key.
        aggregate = self._window.get(call)
        if aggregate is None:
            aggregate = self._window[call] = LatencyAggregate()
            if self._flusher is None and self.sink is not None and not self._closed:
                self._start()
        aggregate.add(decision, ms)
        if self._histogram is not None:
            labels = {
                "point": call.point,
                "executor": call.name,
                "kind": call.kind,
                "decision": DECISIONS[decision],
            }
            self._histogram.record(ms, labels)

    def snapshot(self) -> list[StatsRow]:
        """What this worker gathered since its last flush, one row per executor (nothing reset)."""
        now = self.clock()
        merged: dict[ExecutorKey, LatencyAggregate] = {}
        for call, aggregate in self._window.items():
            key = (call.point, call.name, call.kind)
            merged.setdefault(key, LatencyAggregate()).merge(aggregate)
        return [
            a.row(worker=self.worker, at=now, since=self._since, key=k) for k, a in merged.items()
        ]

    async def flush(self) -> None:
        """Hand the aggregate since the last flush to the sink, and start a new one.

        What the sink refuses is merged back, so the next flush writes it.
        """
        if self.sink is None or not self._window:
            return
        rows, window = self.snapshot(), self._window
        self._window, self._since = {}, self.clock()
        try:
            await self.sink.write_stats(rows)
        except Exception:
            for key, aggregate in window.items():
                self._window.setdefault(key, LatencyAggregate()).merge(aggregate)
            raise

    async def aclose(self) -> None:
        """Stop the periodic flush and write what is left (the manager's ``aclose`` calls it)."""
        self._closed = True
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        try:
            await self.flush()
        except Exception as error:
            log.error(
                "executor stats: the last %d rows were not written: %s", len(self._window), error
            )

    def _start(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside a loop (a test's add): flushed at close
            return
        self._flusher = loop.create_task(self._run(), name="executor-stats-flush")

    async def _run(self) -> None:
        failing = False
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.flush()
            except Exception as error:
                if not failing:
                    log.warning("executor stats wait for the database: %s", error)
                failing = True
                continue
            failing = False

    def __repr__(self) -> str:
        return f"<ExecutorStats {len(self._window)} executors, every {self.interval:g}s>"


def register_executor_stats(
    manager: Monitored,
    sink: StatsSink | None,
    *,
    interval: float = FLUSH_SECONDS,
    meter: HistogramMeter | None = None,
) -> MonitorHandle | None:
    """Count and time every executor call of ``manager``.

    Args:
        manager: whose executors to watch.
        sink: where aggregates are flushed (the database's table); ``None`` for memory only.
        interval: seconds between flushes.
        meter: for the per-executor latency histogram on the metrics endpoint.

    Returns:
        The undo handle; ``None`` when ``manager`` has stats already (the file and the worker
        may both ask, and two would count every call twice).
    """
    if any(isinstance(m, ExecutorStats) for m in manager.monitors("executor")):
        return None
    stats = ExecutorStats(sink, interval=interval, meter=meter)
    return manager.add_monitor(stats, around="executor")
