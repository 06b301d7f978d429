"""HookManager: registers executors at points and runs an operation's pre, in and post chains.

Sorting happens at registration (``bisect.insort`` on ``(priority, sequence)``);
the run path only reads immutable tuples. Monitors (:mod:`harness.hooks.monitor`) wrap
chains or operations through :meth:`HookManager.add_monitor`; which operations this task is
inside is :mod:`harness.hooks.running`'s. What the default bodies do
lives in :mod:`harness.bodies`; where operations run is :mod:`harness.temporal`'s concern.
"""

from __future__ import annotations

import bisect
import inspect
import itertools
import logging
from collections.abc import Iterable, Sequence
from functools import partial
from typing import Final, NamedTuple, TypeVar

from harness.hooks import monitor as monitoring
from harness.hooks.audit import AuditLog
from harness.hooks.catalogue import DEFAULT_PRIORITY, OPERATIONS, PHASES, points, split_point
from harness.hooks.contexts import CONTEXT_TYPES, HookContext
from harness.hooks.errors import HookAbort, HookTransportError, HookValidationError
from harness.hooks.executor import AbandonObserver, Executor, Registration, executor_name
from harness.hooks.executor import check_shape as _check_shape
from harness.hooks.executor import is_async_callable as _is_async_callable
from harness.hooks.modes import MODE_RANK, Mode, check_mode, wrap
from harness.hooks.monitor import AROUND, AnyMonitor, Around, Monitor, MonitorHandle
from harness.hooks.observers import ObserverQueue
from harness.hooks.running import DEFAULT_MAX_DEPTH, RUNNING, too_deep
from harness.hooks.validators import run_order
from harness.redaction import Redactor

log = logging.getLogger(__name__)

C = TypeVar("C", bound=HookContext)

_EMPTY: Final[tuple[Registration, ...]] = ()

_IDLE: Final = (_EMPTY, _EMPTY, _EMPTY)
"""The phases of an operation with no executor: the one object, so ``run`` tells it by identity."""


class AbortRecord(NamedTuple):
    """An abort as the manager saw it: where, by whom, why, and for which correlation id."""

    point: str
    executor: str
    reason: str
    refusal: bool
    correlation_id: str


class HookManager:
    """The registry of executors and the runner of operations.

    Args:
        redactor: scrubs every context before executors see it and every output;
            a default :class:`Redactor` when omitted.
        max_depth: how many operations may run inside one another (an executor of one
            calling ``run`` for another) before the innermost is aborted; an executor
            that re-enters its own operation without end gets a :class:`HookAbort`
            naming the chain, not a ``RecursionError``.

    Attributes:
        audit: every abort, refusal, transport error and dry-run verdict (issue 6);
            add sinks to persist it.
        observers: the bounded queue observers run from, off the chain; its ``stats()``
            counts what each observer was offered, dropped and had ignored (issue 15).
    """

    def __init__(
        self, *, redactor: Redactor | None = None, max_depth: int = DEFAULT_MAX_DEPTH
    ) -> None:
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.redactor = redactor or Redactor()
        self.max_depth = max_depth
        self.audit = AuditLog(self.redactor)
        self.observers = ObserverQueue(self.audit)
        # The live catalogue's points: an operation a plugin declared at run time is one too.
        self._registrations: dict[str, list[Registration]] = {p: [] for p in points()}
        self._chains: dict[str, tuple[Registration, ...]] = {p: _EMPTY for p in points()}
        self._runs = dict(self._chains)  # _chains with validators grouped, as run() runs them
        # What run() takes: each operation's (pre, in, post) runs, built at registration.
        self._phases = {p.rpartition(".")[0]: _IDLE for p in points()}
        self._sequence = itertools.count()
        self._monitors: dict[Around, list[MonitorHandle]] = {a: [] for a in AROUND}
        self._run_chain = monitoring.chain_runner(None)  # both rebuilt as monitors change
        self._around_operation: Monitor | None = None

    def register(
        self,
        point: str,
        executor: Executor,
        *,
        priority: int = DEFAULT_PRIORITY,
        mode: Mode = "normal",
    ) -> Registration:
        """Add ``executor`` at ``point``; lower priorities run first, ties in registration order.

        Args:
            point: ``<operation>.<phase>``.
            executor: the async callable.
            priority: lower runs first.
            mode: ``normal``, ``validator`` (after the others, concurrently, pass or abort
                only), ``audit`` (only recorded) or ``observer`` (off the chain, through
                :attr:`observers`, nothing applied); :mod:`harness.hooks.modes` says more.

        Raises:
            UnknownHookPointError: ``point`` is not ``<operation>.<phase>`` of the catalogue.
            ValueError: ``executor`` declares another ``point`` (remote executors do), the
                mode is unknown, or a validator or an observer is registered at an ``in`` point.
            TypeError: ``executor`` is not an async callable.
        """
        split_point(point)
        check_mode(point, mode)
        bound = getattr(executor, "point", None)
        if isinstance(bound, str) and bound != point:
            # Remote executors are built for one point; serving another would send the
            # wrong method or tool name and validate replies against the wrong context.
            raise ValueError(f"executor {executor_name(executor)} serves {bound}, not {point}")
        if not _is_async_callable(executor):
            raise TypeError(
                f"executor {executor_name(executor)} for {point} must be an async callable "
                "(async def, or an object with an async __call__)"
            )
        name = executor_name(executor)
        _check_shape(executor, point, name)
        executor = wrap(
            executor, mode, point=point, name=name, audit=self.audit, observers=self.observers
        )
        reg = Registration(
            point, executor, priority, next(self._sequence), name, mode, MODE_RANK[mode]
        )
        bisect.insort(self._registrations[point], reg, key=lambda r: r.sort_key)
        self._publish(point)
        log.debug("registered %s at %s (priority %d, %s)", reg.name, point, priority, mode)
        return reg

    def unregister(self, registration: Registration) -> None:
        """Remove a registration; removing one twice is an error.

        Raises:
            ValueError: ``registration`` is not (or no longer) registered.
        """
        regs = self._registrations.get(registration.point, [])
        if registration not in regs:
            raise ValueError(f"{registration!r} is not registered")
        regs.remove(registration)
        self._publish(registration.point)

    def _publish(self, point: str) -> None:
        """Rebuild what ``point``'s operation runs from its registrations."""
        self._chains[point] = tuple(self._registrations[point])
        self._runs[point] = run_order(self._chains[point])
        operation = point.rpartition(".")[0]
        pre, body, post = (self._runs[f"{operation}.{phase}"] for phase in PHASES)
        self._phases[operation] = (pre, body, post) if pre or body or post else _IDLE

    def replace(
        self, old: Iterable[Registration], new: Iterable[tuple[str, Executor, int, Mode]]
    ) -> list[Registration]:
        """Unregister ``old`` and register ``new`` (``(point, executor, priority, mode)``) as one
        change: a hot reload of the hooks file (issue 15).

        Staged on copies, then published: nothing awaits in between, so an operation takes
        every chain from before or every chain from after, and one in flight keeps its own.

        Returns:
            The new registrations, in the order of ``new``.

        Raises:
            ValueError: as :meth:`unregister` or :meth:`register`; then nothing changed.
            TypeError: as :meth:`register`; then nothing changed.
        """
        published = self._registrations, self._chains, self._runs, self._phases
        self._registrations = {point: list(regs) for point, regs in published[0].items()}
        self._chains, self._runs = dict(published[1]), dict(published[2])
        self._phases = dict(published[3])
        try:
            for reg in old:
                self.unregister(reg)
            return [self.register(p, ex, priority=pr, mode=m) for p, ex, pr, m in new]
        except BaseException:
            self._registrations, self._chains, self._runs, self._phases = published
            raise

    def add_monitor(self, monitor: AnyMonitor, *, around: Around = "chain") -> MonitorHandle:
        """Wrap every chain run (or every operation run) in ``monitor``, newest outermost.

        Args:
            monitor: ``(point, ctx, proceed) -> ctx``, awaiting ``proceed()`` once.
            around: ``chain`` (each non-empty chain, ``point`` is ``<operation>.<phase>``) or
                ``operation`` (each run after its checks, ``point`` is the operation), or
                ``executor`` (each executor call; an ``ExecutorMonitor``).

        Returns:
            The undo handle: calling it removes this monitor and keeps every other.

        Raises:
            ValueError: ``around`` is not one of ``chain``, ``operation``, ``executor``.
        """
        if around not in self._monitors:
            raise ValueError(f"unknown monitor scope {around!r}: expected one of {AROUND}")
        handle = MonitorHandle(monitor, around, self._remove_monitor)
        self._monitors[around].append(handle)
        self._compose_monitors()
        return handle

    def monitors(self, around: Around = "chain") -> tuple[AnyMonitor, ...]:
        """The monitors wrapping each chain (or each operation), the oldest (innermost) first."""
        return tuple(handle.monitor for handle in self._monitors[around])

    def _remove_monitor(self, handle: MonitorHandle) -> None:
        self._monitors[handle.around].remove(handle)
        self._compose_monitors()

    def _compose_monitors(self) -> None:
        self._run_chain, self._around_operation = monitoring.runners(self._monitors)

    def registrations(self, point: str) -> Sequence[Registration]:
        """The registrations at ``point`` in the order they run."""
        split_point(point)
        return self._chains[point]

    async def run(self, operation: str, ctx: C) -> C:
        """Run ``operation``: pre chain, in chain (the body), post chain.

        Returns:
            The context after post, redacted.

        Raises:
            HookAbort: an executor cancelled the operation (also kept in :attr:`aborts`).
            HookValidationError: an executor returned an invalid replacement.
            Exception: whatever the body or a post executor raised, after abandon ran.
        """
        cls = CONTEXT_TYPES.get(operation)
        if cls is None or type(ctx) is not cls:
            raise HookValidationError(
                point=operation,
                executor="<caller>",
                detail=f"run() needs a {cls.__name__ if cls else 'catalogue operation'}"
                f" context, got {type(ctx).__name__}",
            )
        running = RUNNING.get()
        if len(running) >= self.max_depth:
            abort = too_deep(running, operation)
            self._record(abort, ctx)
            raise abort
        phases = self._phases[operation]
        scrub = self.redactor.redact_model
        if phases is _IDLE and self._around_operation is None:
            # Nothing runs inside, so nothing can read RUNNING or fail: the scrubbed input is
            # the output (the caller gets no secret back, as from a run of any length).
            return scrub(ctx)
        pre, body, post = phases
        current: HookContext = scrub(ctx)
        depth = RUNNING.set((*running, current))
        try:
            if self._around_operation is None:  # inline: the unwatched path costs no extra call
                if pre:
                    current = await self._run_chain(pre, current, scrub=scrub)
                if body:
                    current = await self._run_chain(body, current, until_result=True, scrub=scrub)
                if post:
                    current = await self._run_chain(post, current, scrub=scrub)
            else:
                watched = [current]
                proceed = partial(
                    monitoring.watched_chains, self._run_chain, watched, pre, body, post, scrub
                )
                try:
                    current = await self._around_operation(operation, current, proceed)
                except BaseException:
                    current = watched[0]  # how far the chains got, as on the unwatched path
                    raise
        except BaseException as error:
            # What a pre executor opened (a span, a lock) must be closed whatever failed after it.
            if pre:
                self.abandon(operation + ".pre", current, error)
            if isinstance(error, HookAbort):
                self._record(error, current)
            elif isinstance(error, HookTransportError):
                self.audit.record(
                    "transport_error",
                    point=error.point,
                    executor=error.endpoint,
                    reason=error.cause,
                    ctx=current,
                )
            raise
        finally:
            RUNNING.reset(depth)
        # The input was scrubbed above and every replacement as the chain took it, so the
        # output, being one of them, is scrubbed already.
        return current  # type: ignore[return-value]  # the chain keeps the context's type

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """Tell every :class:`AbandonObserver` at ``point`` that the operation failed.

        Synchronous, so it also works from ``finally`` blocks and cancellation paths;
        an observer's own failure is logged and suppressed.
        """
        for reg in self._chains.get(point, _EMPTY):
            if isinstance(reg.executor, AbandonObserver):
                try:
                    # Typed as returning None; a wrongly written observer returns a coroutine.
                    returned: object = reg.executor.abandon(point, ctx, error)  # type: ignore[func-returns-value]
                except Exception:
                    log.exception("abandon observer %s at %s failed (suppressed)", reg.name, point)
                    continue
                if inspect.iscoroutine(returned):  # a def returning a coroutine: never run
                    returned.close()
                    log.error(
                        "abandon observer %s at %s returned a coroutine; abandon must do "
                        "its work synchronously (it is never awaited)",
                        reg.name,
                        point,
                    )

    async def aclose(self) -> None:
        """Close every registered executor that holds connections (has ``aclose``), once each.

        The worker calls it when it stops; a failure to close is logged, not raised. The
        audit log's sinks close last, so what the executors' closing audited is written.
        Observers first: the queue drains for its ``shutdown_seconds``, then is cancelled.
        """
        await self.observers.aclose()
        seen: set[int] = set()
        for regs in self._chains.values():
            for reg in regs:
                close = getattr(reg.executor, "aclose", None)
                if close is None or id(reg.executor) in seen:
                    continue
                seen.add(id(reg.executor))
                try:
                    await close()
                except Exception:
                    log.exception("closing executor %s failed (suppressed)", reg.name)
        await monitoring.aclose_monitors(self._monitors)  # a stats monitor flushes here
        await self.audit.aclose()

    def _record(self, abort: HookAbort, ctx: HookContext) -> None:
        # The one place an abort's reason is scrubbed (issue 25): every abort, a remote
        # executor's as sent or an in-process one's, leaves the engine here, and the reason
        # travels on into replies, logs and Temporal's history.
        abort.reason = self.redactor.redact_text(abort.reason)
        abort.args = (abort.reason,)
        record = self.audit.record(
            "ask" if abort.ask else "refusal" if abort.refusal else "abort",
            point=abort.point or "",
            executor=abort.executor or "",
            reason=abort.reason,
            ctx=ctx,
        )
        log.info(
            "%s at %s by %s: %s (correlation %s)",
            record.kind,
            record.point,
            record.executor,
            record.reason,
            record.correlation_id or "-",
        )

    @property
    def aborts(self) -> list[AbortRecord]:
        """Recent aborts and refusals in this process, oldest first: a view of :attr:`audit`."""
        return [
            AbortRecord(r.point, r.executor, r.reason, r.kind == "refusal", r.correlation_id)
            for r in self.audit.last(len(self.audit))
            if r.kind in ("abort", "refusal")
        ]

    def __repr__(self) -> str:
        count = sum(len(regs) for regs in self._chains.values())
        return f"<HookManager {count} executors on {len(OPERATIONS)} operations>"
