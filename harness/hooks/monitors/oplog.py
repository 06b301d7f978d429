"""The operation log: one JSON line per chain run (point, duration, outcome, abort reason).

A monitor on the manager's one instrumentation seam (STYLE rule 4): it replaces
``HookManager._run_chain`` and returns an ``undo`` callable, as pluggy's
``add_hookcall_monitoring`` does, so the chain loop itself never asks whether it is
logged. Lines carry ids and redacted reasons only, never context data. Spans are
:mod:`harness.hooks.monitors.otel`'s.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Final

from harness.hooks.chain import Scrub
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager

LOGGER_NAME: Final = "harness.hooks.operations"


def install_operation_log(
    manager: HookManager,
    *,
    logger: logging.Logger | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> Callable[[], None]:
    """Log every chain ``manager`` runs as one JSON object per line, at INFO.

    Args:
        manager: whose chain runner to wrap (whatever is installed now, so monitors stack).
        logger: where lines go; ``harness.hooks.operations`` when omitted.
        clock: monotonic seconds, for durations.

    Returns:
        ``undo``: puts back the runner that was installed before.
    """
    out = logger or logging.getLogger(LOGGER_NAME)
    inner = manager._run_chain
    redact = manager.redactor.redact_text

    async def run_chain_logged(
        registrations: Sequence[Registration],
        ctx: HookContext,
        *,
        until_result: bool = False,
        scrub: Scrub | None = None,
    ) -> HookContext:
        started = clock()
        outcome, reason, executor = "ok", "", ""
        try:
            return await inner(registrations, ctx, until_result=until_result, scrub=scrub)
        except HookAbort as abort:
            outcome = "refusal" if abort.refusal else "abort"
            reason, executor = abort.reason, abort.executor or ""
            raise
        except BaseException as error:
            outcome, reason = "error", f"{type(error).__name__}: {error}"
            raise
        finally:
            record = {
                "event": "hook.chain",
                "point": registrations[0].point,
                "duration_ms": round((clock() - started) * 1000, 3),
                "outcome": outcome,
                "reason": redact(reason),
                "executor": executor,
                "executors": len(registrations),
                "task_id": redact(ctx.task.task_id) if ctx.task else "",
                "correlation_id": ctx.correlation_id,
                "attempt": ctx.attempt,
            }
            out.info("%s", json.dumps(record, separators=(",", ":")))

    manager._run_chain = run_chain_logged

    def undo() -> None:
        manager._run_chain = inner

    return undo
