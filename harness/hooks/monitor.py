"""Monitors: wrappers around each chain run or each operation run, the one instrumentation seam.

A monitor is an async callable ``(point, ctx, proceed) -> ctx`` that awaits ``proceed()``
exactly once and returns what it returned (pluggy's ``add_hookcall_monitoring``, with an
``around`` instead of a before/after pair). :meth:`HookManager.add_monitor` keeps them in
a list and composes them here whenever the list changes, so the chain loop never asks
whether it is watched and removing one, in any order, keeps the others (STYLE rule 4).
It is not an executor: it sees every run and cannot veto one except by raising. The
concrete monitors (budget, oplog, otel, metrics) live in :mod:`harness.hooks.monitors`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Final, Literal, Protocol, cast, final

from harness.hooks.chain import Scrub, run_chain
from harness.hooks.contexts import HookContext
from harness.hooks.decisions import watched, watching
from harness.hooks.executor import Registration, applies_of, executor_kind
from harness.hooks.validators import ValidatorGroup
from harness.redaction import Redactor

log = logging.getLogger(__name__)

Proceed = Callable[[], Awaitable[HookContext]]
"""Runs what the monitor wraps (the next monitor, or the chain or operation itself)."""

Around = Literal["chain", "operation", "executor"]
"""What a monitor wraps: each chain (``point`` is ``<operation>.<phase>``, and a chain with no
executor is not run), each operation (``point`` is the operation, pre, in and post inside), or
each executor call (an :class:`ExecutorMonitor`, told which by an :class:`ExecutorCall`)."""

AROUND: Final[tuple[Around, ...]] = ("chain", "operation", "executor")

CallProceed = Callable[[], Awaitable["HookContext | None"]]
"""Runs the executor call an :class:`ExecutorMonitor` wraps (or the next monitor around it)."""


class Monitor(Protocol):
    """Wraps one run; must await ``proceed()`` once and return (or raise) what it did."""

    def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> Awaitable[HookContext]:
        """Run ``proceed`` for the chain or operation ``point`` on the redacted ``ctx``."""
        ...


@final
class ExecutorCall:
    """The executor a watched call runs, named once when the chain is first watched (not per call).

    Attributes:
        registration: the executor's registration (its ``point``, ``name``, ``mode``).
        kind: ``local``, ``jsonrpc`` or ``mcp``, seen through the mode and configuration wrappers.
    """

    __slots__ = ("kind", "mode", "name", "point", "registration")

    def __init__(self, registration: Registration) -> None:
        self.registration = registration
        self.point = registration.point
        self.name = registration.name
        self.mode = registration.mode
        self.kind = executor_kind(registration.executor)

    def __repr__(self) -> str:
        return f"<ExecutorCall {self.point} {self.name} ({self.kind})>"


class ExecutorMonitor(Protocol):
    """Wraps one executor call; must await ``proceed()`` once and return (or raise) what it did."""

    def __call__(
        self, call: ExecutorCall, ctx: HookContext, proceed: CallProceed, /
    ) -> Awaitable[HookContext | None]:
        """Run ``proceed`` (``call``'s executor on ``ctx``); return its replacement or ``None``."""
        ...


AnyMonitor = Monitor | ExecutorMonitor
"""What :meth:`Monitored.add_monitor` takes: a :class:`Monitor`, or for ``around="executor"`` an
:class:`ExecutorMonitor`."""


class ChainRunner(Protocol):
    """What runs one chain: :func:`~harness.hooks.chain.run_chain`, or it inside monitors."""

    def __call__(
        self,
        registrations: Sequence[Registration],
        ctx: HookContext,
        *,
        until_result: bool = False,
        scrub: Scrub | None = None,
    ) -> Awaitable[HookContext]: ...


class Monitored(Protocol):
    """What a monitor's installer may use of the manager it watches (:class:`HookManager` is one).

    The seam, not the class: the monitors import this, never the manager, so the manager
    and its monitors depend one way.
    """

    @property
    def redactor(self) -> Redactor:
        """The redactor the manager masks every context and reason with."""
        ...

    def registrations(self, point: str) -> Sequence[Registration]:
        """The chain at ``point``, in run order."""
        ...

    def add_monitor(self, monitor: AnyMonitor, *, around: Around = "chain") -> MonitorHandle:
        """Wrap each chain (operation, executor call) run in ``monitor``; the handle undoes it."""
        ...

    def monitors(self, around: Around = "chain") -> tuple[AnyMonitor, ...]:
        """The monitors wrapping each chain (or operation), the oldest (innermost) first."""
        ...


@final
class MonitorHandle:
    """The undo handle :meth:`HookManager.add_monitor` returns: call it to remove the monitor.

    Calling it again does nothing, so cleanup paths may call it unconditionally.
    """

    __slots__ = ("_remove", "around", "monitor")

    def __init__(
        self, monitor: AnyMonitor, around: Around, remove: Callable[[MonitorHandle], None]
    ) -> None:
        self.monitor = monitor
        self.around = around
        self._remove: Callable[[MonitorHandle], None] | None = remove

    def __call__(self) -> None:
        remove, self._remove = self._remove, None
        if remove is not None:
            remove(self)

    def __repr__(self) -> str:
        return f"<MonitorHandle {self.around} {self.monitor!r}>"


def compose(monitors: Sequence[Monitor]) -> Monitor | None:
    """One monitor that runs ``monitors`` nested, the last one outermost; ``None`` for none.

    The newest is outermost, as each ``_run_chain`` patch used to wrap whatever was
    installed before (a configured budget inside the operation log, so a budget's timeout
    is logged as the chain's outcome).
    """
    if not monitors:
        return None
    composed = monitors[0]
    for outer in monitors[1:]:
        composed = _nest(outer, composed)
    return composed


def _nest(outer: Monitor, inner: Monitor) -> Monitor:
    def nested(point: str, ctx: HookContext, proceed: Proceed, /) -> Awaitable[HookContext]:
        return outer(point, ctx, lambda: inner(point, ctx, proceed))

    return nested


def runners(
    handles: Mapping[Around, Sequence[MonitorHandle]],
) -> tuple[ChainRunner, Monitor | None]:
    """What the manager runs chains with, and the monitor around each operation (or ``None``).

    Args:
        handles: the installed monitors by scope, the oldest first in each.
    """
    chains = compose([cast(Monitor, h.monitor) for h in handles.get("chain", ())])
    calls = [cast(ExecutorMonitor, h.monitor) for h in handles.get("executor", ())]
    operations = compose([cast(Monitor, h.monitor) for h in handles.get("operation", ())])
    return chain_runner(chains, compose_calls(calls)), operations


def compose_calls(monitors: Sequence[ExecutorMonitor]) -> ExecutorMonitor | None:
    """One executor monitor running ``monitors`` nested, the newest outermost; ``None`` for none."""
    if not monitors:
        return None
    composed = monitors[0]
    for outer in monitors[1:]:
        composed = _nest_call(outer, composed)
    return composed


def _nest_call(outer: ExecutorMonitor, inner: ExecutorMonitor) -> ExecutorMonitor:
    def nested(
        call: ExecutorCall, ctx: HookContext, proceed: CallProceed, /
    ) -> Awaitable[HookContext | None]:
        return outer(call, ctx, lambda: inner(call, ctx, proceed))

    return nested


WATCHED_CHAINS_KEPT: Final = 1024
"""Chains whose watched copy is kept; past it the cache starts again (registrations changed
that often), so it cannot grow without bound."""


def chain_runner(monitor: Monitor | None, watch: ExecutorMonitor | None = None) -> ChainRunner:
    """:func:`run_chain` itself when nothing watches chains or executors (the fast path).

    With ``watch``, each chain runs as a copy whose executors are wrapped in it: built once per
    chain (a tuple, replaced whenever the chain changes) and kept, so the loop is the same
    loop and only the watched path pays for the watching.
    """
    run: ChainRunner = run_chain if watch is None else _watching(watch)
    if monitor is None:
        return run
    around = monitor

    def monitored(
        registrations: Sequence[Registration],
        ctx: HookContext,
        *,
        until_result: bool = False,
        scrub: Scrub | None = None,
    ) -> Awaitable[HookContext]:
        return around(
            registrations[0].point,
            ctx,
            lambda: run(registrations, ctx, until_result=until_result, scrub=scrub),
        )

    return monitored


def _watching(watch: ExecutorMonitor) -> ChainRunner:
    kept: dict[int, tuple[Sequence[Registration], tuple[Registration, ...]]] = {}

    def run_watched(
        registrations: Sequence[Registration],
        ctx: HookContext,
        *,
        until_result: bool = False,
        scrub: Scrub | None = None,
    ) -> Awaitable[HookContext]:
        hit = kept.get(id(registrations))
        if hit is None or hit[0] is not registrations:  # holding the chain keeps its id unique
            if len(kept) >= WATCHED_CHAINS_KEPT:
                kept.clear()
            hit = kept[id(registrations)] = (registrations, _watched(registrations, watch))
        return run_chain(hit[1], ctx, until_result=until_result, scrub=scrub)

    return run_watched


def _watched(chain: Sequence[Registration], watch: ExecutorMonitor) -> tuple[Registration, ...]:
    """``chain`` with each executor called through ``watch``; same names, points and order.

    A group of parallel validators is watched member by member (each its own call), so every
    validator is seen with its own decision and time, not the group's.
    """
    return tuple(
        Registration(
            reg.point,
            ValidatorGroup(_watched(reg.executor.members, watch))
            if isinstance(reg.executor, ValidatorGroup)
            else _WatchedExecutor(reg, watch),
            reg.priority,
            reg.sequence,
            reg.name,
            reg.mode,
            reg.rank,
        )
        for reg in chain
    )


@final
class _WatchedExecutor:
    """One registration's executor called through the executor monitors, each of which reads
    the same pass-over (:func:`~harness.hooks.decisions.passed_over`) when it returned.

    A call its match skips (:func:`~harness.hooks.executor.applies_of`) runs unwatched: it
    passes without running, so it is no decision, no span and no stats call (issue 28).
    """

    __slots__ = ("applies", "call", "inner", "watch")

    def __init__(self, registration: Registration, watch: ExecutorMonitor) -> None:
        self.call = ExecutorCall(registration)
        self.inner = registration.executor
        self.applies = applies_of(self.inner)
        self.watch = watch

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        if self.applies is not None and not self.applies(ctx):
            return await self.inner(ctx)  # passes without running, as it does unwatched
        token = watching()
        try:
            return await self.watch(self.call, ctx, partial(self.inner, ctx))
        finally:
            watched(token)


async def aclose_monitors(handles: Mapping[Around, Sequence[MonitorHandle]]) -> None:
    """Close every installed monitor that holds something (has ``aclose``: a stats flusher).

    The manager's ``aclose`` calls it; a failure is logged, not raised.
    """
    for scoped in handles.values():
        for handle in scoped:
            close = getattr(handle.monitor, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception:
                log.exception("closing monitor %r failed (suppressed)", handle.monitor)


async def watched_chains(
    run: ChainRunner,
    watched: list[HookContext],
    pre: Sequence[Registration],
    body: Sequence[Registration],
    post: Sequence[Registration],
    scrub: Scrub,
) -> HookContext:
    """An operation's chains inside its monitors; ``watched[0]`` holds how far they got.

    :meth:`HookManager.run` reads it when they fail, so abandon observers and the audit
    see the context as the last chain left it, as they do when nothing watches.
    """
    if pre:
        watched[0] = await run(pre, watched[0], scrub=scrub)
    if body:
        watched[0] = await run(body, watched[0], until_result=True, scrub=scrub)
    if post:
        watched[0] = await run(post, watched[0], scrub=scrub)
    return watched[0]
