"""WorkerReadiness: the worker's ``/readyz`` answer, from where its start-up has got to.

Ready means "polls its task queue": connected to Temporal, the worker running
(Temporal checked the namespace) and no stop requested. Before that the reason says
what it waits for; while draining, that it stops. The endpoints themselves are
:mod:`harness.health`'s; :mod:`harness.temporal.worker` moves this along.
"""

from __future__ import annotations

import asyncio
from typing import final

from temporalio.worker import Worker


@final
class WorkerReadiness:
    """A :data:`harness.health.Probe` for one worker process.

    Args:
        stop: the process's stop signal.
    """

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self.worker: Worker | None = None
        """Set by :func:`harness.temporal.worker.serve` once it has a connected worker."""

    async def __call__(self) -> str | None:
        """``None`` while the worker polls; else a short reason."""
        if self.stop.is_set():
            return "stopping: in-flight work is finishing, then the worker exits"
        if self.worker is None:
            return "starting: connecting to Temporal"
        if not self.worker.is_running:
            return "stopped" if self.worker.is_shutdown else "starting: not polling yet"
        return None
