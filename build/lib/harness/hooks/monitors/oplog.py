"""The operation log: one JSON line per chain run (point, duration, outcome, abort reason).

A monitor around each chain on the manager's one seam (STYLE rule 4), so the chain
loop itself never asks whether it is logged; the undo handle
:meth:`HookManager.add_monitor` returns takes it off again. Lines carry ids and
redacted reasons only, never context data. Spans are :mod:`harness.hooks.monitors.otel`'s.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Final, final

from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.monitor import Monitored, MonitorHandle, Proceed

LOGGER_NAME: Final = "harness.hooks.operations"


@final
class OperationLog:
    """Logs each chain ``manager`` runs as one JSON object per line, at INFO.

    Args:
        manager: whose redactor scrubs reasons and ids, and whose chains are counted.
        logger: where lines go.
        clock: monotonic seconds, for durations.
    """

    def __init__(
        self, manager: Monitored, logger: logging.Logger, clock: Callable[[], float]
    ) -> None:
        self.manager = manager
        self.logger = logger
        self.clock = clock

    async def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> HookContext:
        """Run the chain ``point`` and log how it went, whatever the outcome."""
        started = self.clock()
        outcome, reason, executor = "ok", "", ""
        try:
            return await proceed()
        except HookAbort as abort:
            outcome = "refusal" if abort.refusal else "abort"
            reason, executor = abort.reason, abort.executor or ""
            raise
        except BaseException as error:
            outcome, reason = "error", f"{type(error).__name__}: {error}"
            raise
        finally:
            redact = self.manager.redactor.redact_text
            record = {
                "event": "hook.chain",
                "point": point,
                "duration_ms": round((self.clock() - started) * 1000, 3),
                "outcome": outcome,
                "reason": redact(reason),
                "executor": executor,
                "executors": len(self.manager.registrations(point)),
                "task_id": redact(ctx.task.task_id) if ctx.task else "",
                "correlation_id": ctx.correlation_id,
                "attempt": ctx.attempt,
            }
            self.logger.info("%s", json.dumps(record, separators=(",", ":")))


def install_operation_log(
    manager: Monitored,
    *,
    logger: logging.Logger | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> MonitorHandle:
    """Log every chain ``manager`` runs as one JSON object per line, at INFO.

    Args:
        manager: whose chains to watch (other monitors stay, in any order).
        logger: where lines go; ``harness.hooks.operations`` when omitted.
        clock: monotonic seconds, for durations.

    Returns:
        ``undo``: removes this log and nothing else.
    """
    out = logger or logging.getLogger(LOGGER_NAME)
    return manager.add_monitor(OperationLog(manager, out, clock))
