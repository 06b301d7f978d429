"""Observers: executors off the critical path, fed through one bounded queue per manager.

An executor registered with ``mode="observer"`` receives the (redacted) context at its
place in the chain, but the chain does not wait for it (issue 15, point 6): its
:class:`ObserverExecutor` hands the call to the manager's :class:`ObserverQueue` and
passes at once. The queue runs at most ``concurrency`` observations at a time and holds
at most ``queue_size`` more; beyond that an observation is dropped and counted. Nothing an
observer does reaches the operation: a replacement is ignored, a veto or a failure is
counted, logged and audited as ``observer_ignored``. The queue is in memory, per process:
best effort, lost with the process, never a delivery guarantee.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, NamedTuple, final

from harness.hooks.audit import AuditLog, AuditRecord
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Executor, applies_of

log = logging.getLogger(__name__)

WARNING_INTERVAL: Final = 10.0
"""Seconds between two WARNING lines about one observer's drops (or failures): a full queue
is a flood, and one line per dropped observation would be a second one."""

DropListener = Callable[[str, str], None]
"""Called with ``(point, executor)`` for each dropped observation (the worker's metric)."""


@final
@dataclass(frozen=True, slots=True)
class ObserverLimits:
    """How much the observer tier may hold: the hooks file's ``[observers]`` table.

    Attributes:
        queue_size: observations waiting for a free slot; one more is dropped.
        concurrency: observations running at once (each an asyncio task).
        shutdown_seconds: how long :meth:`ObserverQueue.aclose` waits for the queue to
            drain before it cancels what is left.
    """

    queue_size: int = 1000
    concurrency: int = 4
    shutdown_seconds: float = 5.0

    def __post_init__(self) -> None:
        if self.queue_size < 0 or self.concurrency < 1 or self.shutdown_seconds < 0:
            raise ValueError(f"observer limits out of range: {self}")


@final
@dataclass(frozen=True, slots=True)
class ObserverStats:
    """What one observer registration saw in this process (:meth:`ObserverQueue.stats`)."""

    point: str
    executor: str
    offered: int
    dropped: int
    completed: int
    ignored_rewrites: int
    ignored_vetoes: int
    failures: int


@final
class _Counts:
    __slots__ = (
        "completed",
        "dropped",
        "failures",
        "offered",
        "rewrites",
        "vetoes",
        "warned_drops",
        "warned_failures",
    )

    def __init__(self) -> None:
        self.offered = self.dropped = self.completed = 0
        self.rewrites = self.vetoes = self.failures = 0
        self.warned_drops = self.warned_failures = -WARNING_INTERVAL


class _Pending(NamedTuple):
    observer: ObserverExecutor
    ctx: HookContext
    context: contextvars.Context
    seq: int


@final
class ObserverQueue:
    """The manager's bounded queue of observations, drained by at most ``concurrency`` tasks.

    Each observation runs in its own task, in the ``contextvars`` of the operation that
    offered it (its logs are labelled with that operation, its spans nest under it, and
    an observer that runs an operation counts towards ``max_depth``). Observations start
    in the order offered; with ``concurrency`` above 1 they may finish in any order.

    Args:
        audit: where ignored vetoes and failures are recorded (its redactor masks log text).
        limits: the sizes; :meth:`configure` changes them later.
    """

    def __init__(self, audit: AuditLog, limits: ObserverLimits | None = None) -> None:
        self.audit = audit
        self.limits = limits or ObserverLimits()
        self._pending: deque[_Pending] = deque()
        self._tasks: dict[asyncio.Task[None], ObserverExecutor] = {}
        self._seqs: dict[asyncio.Task[None], int] = {}
        self._accepted = 0
        self._counts: dict[tuple[str, str], _Counts] = {}
        self._listeners: list[DropListener] = []
        self._closed = False

    def configure(self, limits: ObserverLimits) -> ObserverLimits:
        """Use ``limits`` from now on; what already runs or waits is kept.

        Returns:
            The limits replaced, so a caller can restore them.
        """
        previous, self.limits = self.limits, limits
        return previous

    def counts(self, point: str, name: str) -> _Counts:
        """The counters of the observer ``name`` at ``point`` (shared by re-registrations)."""
        return self._counts.setdefault((point, name), _Counts())

    def offer(self, observer: ObserverExecutor, ctx: HookContext) -> None:
        """Start ``observer`` on ``ctx`` now, or queue it, or drop it when the queue is full."""
        counts = observer.counts
        counts.offered += 1
        if self._closed:
            self._dropped(observer, "the manager is closing")
        elif len(self._tasks) < self.limits.concurrency:
            self._accepted += 1
            self._start(asyncio.get_running_loop(), observer, ctx, None, self._accepted)
        elif len(self._pending) < self.limits.queue_size:
            self._accepted += 1
            self._pending.append(
                _Pending(observer, ctx, contextvars.copy_context(), self._accepted)
            )
        else:
            self._dropped(observer, f"the queue is full ({self.limits.queue_size} waiting)")

    def add_drop_listener(self, listener: DropListener) -> Callable[[], None]:
        """Call ``listener(point, executor)`` on every drop; returns the undo."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def stats(self) -> tuple[ObserverStats, ...]:
        """Per observer registration (point, executor), what was offered, dropped and ignored."""
        return tuple(
            ObserverStats(
                point, name, c.offered, c.dropped, c.completed, c.rewrites, c.vetoes, c.failures
            )
            for (point, name), c in sorted(self._counts.items())
        )

    @property
    def pending(self) -> int:
        """Observations waiting for a slot."""
        return len(self._pending)

    @property
    def running(self) -> int:
        """Observations running now."""
        return len(self._tasks)

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait until nothing runs or waits (or ``timeout`` seconds pass): for tests and shutdown.

        Returns:
            Whether the queue is empty.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._tasks:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            await asyncio.wait(set(self._tasks), timeout=left)
        return not self._tasks

    def mark(self) -> int:
        """How many observations were accepted so far: a point to wait for with :meth:`settled`."""
        return self._accepted

    async def settled(self, mark: int, timeout: float) -> bool:
        """Wait until every observation accepted up to ``mark`` has ended, or ``timeout`` passes.

        A hot reload waits for this before it closes the observers it removed, so what was
        queued for them still runs on an open connection; later ones are not waited for.

        Returns:
            Whether they all ended.
        """
        deadline = time.monotonic() + timeout
        while True:
            early = {task for task, seq in self._seqs.items() if seq <= mark}
            waiting = bool(self._pending) and self._pending[0].seq <= mark
            if not early and not waiting:
                return True
            left = deadline - time.monotonic()
            if left <= 0 or not (early or self._tasks):
                return False
            await asyncio.wait(
                early or set(self._tasks), timeout=left, return_when=asyncio.FIRST_COMPLETED
            )

    async def aclose(self) -> None:
        """Refuse new observations, let the queue drain for ``shutdown_seconds``, cancel the rest.

        What is cancelled or never started is counted as dropped and logged in one line;
        from then on every observation offered is dropped (the executors are closed next).
        """
        self._closed = True
        await self.drain(self.limits.shutdown_seconds)
        abandoned = [item.observer for item in self._pending]
        self._pending.clear()
        running = dict(self._tasks)
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)
        for observer in (*abandoned, *running.values()):
            self._dropped(observer, "", warn=False)
        if running or abandoned:
            log.warning(
                "observers: %d cancelled and %d never started after the %.1f s shutdown deadline",
                len(running),
                len(abandoned),
                self.limits.shutdown_seconds,
            )

    def _start(
        self,
        loop: asyncio.AbstractEventLoop,
        observer: ObserverExecutor,
        ctx: HookContext,
        context: contextvars.Context | None,
        seq: int,
    ) -> None:
        task = loop.create_task(observer.observe(ctx), context=context)
        self._tasks[task] = observer
        self._seqs[task] = seq
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        del self._tasks[task], self._seqs[task]
        while self._pending and len(self._tasks) < self.limits.concurrency:
            item = self._pending.popleft()
            self._start(task.get_loop(), item.observer, item.ctx, item.context, item.seq)

    def _dropped(self, observer: ObserverExecutor, why: str, *, warn: bool = True) -> None:
        counts = observer.counts
        counts.dropped += 1
        for listener in self._listeners:
            try:
                listener(observer.point, observer.name)
            except Exception:  # a broken metric must not fail the operation that dropped
                log.exception("observer drop listener %r failed (suppressed)", listener)
        now = time.monotonic()
        if warn and now - counts.warned_drops >= WARNING_INTERVAL:
            counts.warned_drops = now
            log.warning(
                "observer %s at %s: observation dropped, %s (%d dropped so far)",
                observer.name,
                observer.point,
                why,
                counts.dropped,
            )


@final
class ObserverExecutor:
    """Registered in place of an observer: hands the context to the queue and passes at once.

    It deliberately has no ``abandon``: an observation runs later, off the operation, so an
    abandon (synchronous, inside the operation) would reach it before it had observed.
    """

    __slots__ = ("applies", "counts", "inner", "name", "point", "queue")

    def __init__(self, inner: Executor, *, point: str, name: str, queue: ObserverQueue) -> None:
        self.inner = inner
        self.applies = applies_of(inner)  # its match, for the watchers of its hand-off
        self.point = point
        self.name = name
        self.queue = queue
        self.counts = queue.counts(point, name)

    async def __call__(self, ctx: HookContext, /) -> None:
        """Queue the observation of ``ctx``; the chain goes on without waiting for it."""
        self.queue.offer(self, ctx)

    async def observe(self, ctx: HookContext) -> None:
        """Run the observer on ``ctx`` (in the queue's task); apply nothing it returns or raises."""
        counts = self.counts
        try:
            out = await self.inner(ctx)
        except HookAbort as abort:
            counts.vetoes += 1
            self._ignored(f"veto ignored: {abort.reason}", ctx)
        except Exception as error:
            counts.failures += 1
            record = self._ignored(f"failure ignored: {type(error).__name__}: {error}", ctx)
            now = time.monotonic()
            if now - counts.warned_failures >= WARNING_INTERVAL:
                counts.warned_failures = now
                log.warning(
                    "observer %s at %s: %s (%d failures so far)",
                    self.name,
                    self.point,
                    record.reason,
                    counts.failures,
                )
        else:
            if inspect.iscoroutine(out):  # an un-awaited call: close it, so nothing warns later
                out.close()
            if out is not None:
                counts.rewrites += 1
                log.debug("observer %s at %s returned a value (ignored)", self.name, self.point)
        counts.completed += 1

    def _ignored(self, reason: str, ctx: HookContext) -> AuditRecord:
        return self.queue.audit.record(
            "observer_ignored", point=self.point, executor=self.name, reason=reason, ctx=ctx
        )

    async def aclose(self) -> None:
        """Close the observer when it holds connections (the manager's ``aclose``)."""
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
