"""Operation counters: how often each operation ran, and how it ended.

Like :mod:`harness.hooks.monitors.otel`, a monitor around each operation run on the
manager's one seam (:meth:`HookManager.add_monitor`); nothing is in the chain loop (STYLE rule 4).
Where the numbers go is a :class:`Meter`, a Protocol that Temporal's
``Runtime.metric_meter`` satisfies, so the worker puts these counters on the same
Prometheus endpoint as the SDK's own (:mod:`harness.temporal.worker.telemetry`). Labels are
catalogue names and fixed outcome words only: never ids, reasons or context data,
so neither cardinality nor secrets can grow with traffic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, Protocol, final

from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort, HookTransportError
from harness.hooks.monitor import Monitored, MonitorHandle, Proceed
from harness.hooks.observers import ObserverQueue

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

OBSERVER_DROPS_METRIC: Final = "harness_observer_drops"
"""Observations dropped by the observer queue (full, or closing), by ``point`` and ``executor``
(the configured name: as bounded as the hooks file)."""

OUTCOMES: Final = ("ok", "abort", "refusal", "transport_error", "error")


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

    async def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> HookContext:
        """Run the operation ``point``; count it as a retry when it is one, then its outcome."""
        if ctx.attempt > 1:
            self.retries.add(1, {"operation": point})
        try:
            out = await proceed()
        except BaseException as error:
            self._failed(point, error)
            raise
        self.operations.add(1, {"operation": point, "outcome": "ok"})
        return out

    def _failed(self, operation: str, error: BaseException) -> None:
        """Count the run's outcome, and the abort or transport error where it arose (an inner
        operation's abort reaches the outer one too: counted once, by the inner)."""
        outcome = _outcome(error)
        self.operations.add(1, {"operation": operation, "outcome": outcome})
        origin = getattr(error, "point", None) or ""
        if not origin.startswith(f"{operation}."):
            return
        if isinstance(error, HookAbort):
            self.aborts.add(1, {"point": origin, "kind": outcome})
        elif isinstance(error, HookTransportError):
            self.transport_errors.add(1, {"point": origin})

    def __repr__(self) -> str:
        return "<OperationCounters>"


def _outcome(error: BaseException) -> str:
    if isinstance(error, HookAbort):
        return "refusal" if error.refusal else "abort"
    if isinstance(error, HookTransportError):
        return "transport_error"
    return "error"


def register_metrics(manager: Monitored, meter: Meter) -> MonitorHandle:
    """Count every operation ``manager`` runs on ``meter``.

    Args:
        manager: whose operations to count.
        meter: where the counters live (the worker's Temporal runtime meter).

    Returns:
        The undo handle: removes the counters and no other monitor.
    """
    return manager.add_monitor(OperationCounters(meter), around="operation")


def count_observer_drops(observers: ObserverQueue, meter: Meter) -> Callable[[], None]:
    """Count every observation ``observers`` drops on ``meter`` (:data:`OBSERVER_DROPS_METRIC`).

    Returns:
        The undo: stops counting.
    """
    drops = meter.create_counter(OBSERVER_DROPS_METRIC, "Observations the observer queue dropped")
    return observers.add_drop_listener(
        lambda point, executor: drops.add(1, {"point": point, "executor": executor})
    )
