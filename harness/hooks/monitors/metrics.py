"""Operation counters as ordinary executors: how often each operation ran, and how it ended.

Like :mod:`harness.hooks.monitors.otel`, one executor opens at every operation's pre point first
and closes at its post point last, and hears of failures as an
:class:`~harness.hooks.AbandonObserver`; nothing is in the chain loop (STYLE rule 4).
Where the numbers go is a :class:`Meter`, a Protocol that Temporal's
``Runtime.metric_meter`` satisfies, so the worker puts these counters on the same
Prometheus endpoint as the SDK's own (:mod:`harness.temporal.telemetry`). Labels are
catalogue names and fixed outcome words only: never ids, reasons or context data,
so neither cardinality nor secrets can grow with traffic.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from typing import Final, Protocol, final

from harness.hooks.catalogue import INNERMOST_PRIORITY, OPERATIONS, OUTERMOST_PRIORITY
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort, HookTransportError
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager

Attributes = Mapping[str, str | int | float | bool]


class Counter(Protocol):
    """A monotonic counter (``temporalio.common.MetricCounter`` is one)."""

    def add(self, value: int, additional_attributes: Attributes | None = None) -> None: ...


class Meter(Protocol):
    """Makes counters (``temporalio.common.MetricMeter`` is one)."""

    def create_counter(
        self, name: str, description: str | None = None, unit: str | None = None
    ) -> Counter: ...


OPERATIONS_METRIC: Final = "harness_operations"
"""Operations run, by ``operation`` and ``outcome`` (:data:`OUTCOMES`)."""
ABORTS_METRIC: Final = "harness_aborts"
"""Aborts by the ``point`` that raised them and ``kind`` (``abort`` or ``refusal``)."""
TRANSPORT_ERRORS_METRIC: Final = "harness_transport_errors"
"""Remote executors that failed an operation, by ``point``."""
RETRIES_METRIC: Final = "harness_retries"
"""Operations run again as a later attempt (``attempt > 1``), by ``operation``."""

OUTCOMES: Final = ("ok", "abort", "refusal", "transport_error", "error")

# Operations this asyncio task has opened and not yet counted, innermost last (as in otel).
_OPEN: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "harness_hook_metrics", default=()
)


@final
class OperationCounters:
    """Counts each run of an operation once, at its end, with its outcome.

    Args:
        meter: where the counters are created.
    """

    name = "metrics"

    def __init__(self, meter: Meter) -> None:
        self.operations = meter.create_counter(OPERATIONS_METRIC, "Hooked operations run")
        self.aborts = meter.create_counter(ABORTS_METRIC, "Operations aborted by an executor")
        self.transport_errors = meter.create_counter(
            TRANSPORT_ERRORS_METRIC, "Remote executors that failed an operation"
        )
        self.retries = meter.create_counter(RETRIES_METRIC, "Operations run as a later attempt")

    def open(self, ctx: HookContext) -> None:
        """At pre, first of all: remember the run, and count it as a retry when it is one."""
        operation = type(ctx).operation
        _OPEN.set((*_OPEN.get(), operation))
        if ctx.attempt > 1:
            self.retries.add(1, {"operation": operation})

    def close(self, ctx: HookContext) -> None:
        """At post, last of all: the run succeeded."""
        operation = type(ctx).operation
        if self._pop(operation):
            self.operations.add(1, {"operation": operation, "outcome": "ok"})

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """The run failed after pre: count its outcome, and the abort or transport error
        where it arose (an inner operation's abort reaches the outer one too: counted once)."""
        operation = point.rpartition(".")[0]
        if not self._pop(operation):
            return  # post counted it already (a later validator failed), or pre never ran
        outcome = _outcome(error)
        self.operations.add(1, {"operation": operation, "outcome": outcome})
        origin = getattr(error, "point", None) or ""
        if not origin.startswith(f"{operation}."):
            return
        if isinstance(error, HookAbort):
            self.aborts.add(1, {"point": origin, "kind": outcome})
        elif isinstance(error, HookTransportError):
            self.transport_errors.add(1, {"point": origin})

    @staticmethod
    def _pop(operation: str) -> bool:
        stack = _OPEN.get()
        if not stack or stack[-1] != operation:
            return False
        _OPEN.set(stack[:-1])
        return True


def _outcome(error: BaseException) -> str:
    if isinstance(error, HookAbort):
        return "refusal" if error.refusal else "abort"
    if isinstance(error, HookTransportError):
        return "transport_error"
    return "error"


@final
class _Phase:
    """Binds the counters' open or close to one point; abandon goes to the counters."""

    __slots__ = ("counters", "name", "run")

    def __init__(self, counters: OperationCounters, closing: bool) -> None:
        self.counters = counters
        self.run = counters.close if closing else counters.open
        self.name = f"metrics.{'close' if closing else 'open'}"

    async def __call__(self, ctx: HookContext, /) -> None:
        self.run(ctx)

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        self.counters.abandon(point, ctx, error)


def register_metrics(manager: HookManager, meter: Meter) -> list[Registration]:
    """Count every operation ``manager`` runs on ``meter``.

    Args:
        manager: where to register the counting executors.
        meter: where the counters live (the worker's Temporal runtime meter).

    Returns:
        The registrations (two per operation).
    """
    counters = OperationCounters(meter)
    opener, closer = _Phase(counters, closing=False), _Phase(counters, closing=True)
    registrations = []
    for operation in OPERATIONS:
        registrations.append(
            manager.register(f"{operation}.pre", opener, priority=OUTERMOST_PRIORITY)
        )
        registrations.append(
            manager.register(
                f"{operation}.post", closer, priority=INNERMOST_PRIORITY, mode="validator"
            )
        )
    return registrations
