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

from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Literal, Protocol, final

from harness.hooks.chain import Scrub, run_chain
from harness.hooks.contexts import HookContext
from harness.hooks.executor import Registration
from harness.hooks.redactor import Redactor

Proceed = Callable[[], Awaitable[HookContext]]
"""Runs what the monitor wraps (the next monitor, or the chain or operation itself)."""

Around = Literal["chain", "operation"]
"""What a monitor wraps: each chain (``point`` is ``<operation>.<phase>``, and a chain with no
executor is not run), or each operation (``point`` is the operation, pre, in and post inside)."""

AROUND: Final[tuple[Around, ...]] = ("chain", "operation")


class Monitor(Protocol):
    """Wraps one run; must await ``proceed()`` once and return (or raise) what it did."""

    def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> Awaitable[HookContext]:
        """Run ``proceed`` for the chain or operation ``point`` on the redacted ``ctx``."""
        ...


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

    def add_monitor(self, monitor: Monitor, *, around: Around = "chain") -> MonitorHandle:
        """Wrap each chain (or each operation) run in ``monitor``; the handle undoes it."""
        ...

    def monitors(self, around: Around = "chain") -> tuple[Monitor, ...]:
        """The monitors wrapping each chain (or operation), the oldest (innermost) first."""
        ...


@final
class MonitorHandle:
    """The undo handle :meth:`HookManager.add_monitor` returns: call it to remove the monitor.

    Calling it again does nothing, so cleanup paths may call it unconditionally.
    """

    __slots__ = ("_remove", "around", "monitor")

    def __init__(
        self, monitor: Monitor, around: Around, remove: Callable[[MonitorHandle], None]
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


def chain_runner(monitor: Monitor | None) -> ChainRunner:
    """:func:`run_chain` itself when no monitor watches chains (the fast path), else wrapped."""
    if monitor is None:
        return run_chain
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
            lambda: run_chain(registrations, ctx, until_result=until_result, scrub=scrub),
        )

    return monitored


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
