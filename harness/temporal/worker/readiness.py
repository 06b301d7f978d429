"""WorkerReadiness: the worker's ``/readyz`` answer, from where its start-up has got to.

Ready means "polls its task queue": connected to Temporal, the worker running
(Temporal checked the namespace), its database answering, and no stop requested.
Before that the reason says what it waits for; while draining, that it stops. The
endpoints themselves are :mod:`harness.health`'s; :mod:`harness.temporal.worker` moves
this along.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Final, final

from temporalio.worker import Worker

from harness.storage import Database, DatabaseError

PING_SECONDS: Final = 2.0
"""How long ``/readyz`` waits for the database to answer."""


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
        self.tools: Callable[[], str | None] | None = None
        """What the worker's tools wait for (``BodyRuntime.waiting_for``), set by serve: until
        every configured MCP tool server is listed the worker neither polls nor is ready."""
        self.database: Database | None = None
        """The database serve opened (``None``: not yet, or the caller's manager has its own)."""

    async def __call__(self) -> str | None:
        """``None`` while the worker polls; else a short reason."""
        if self.stop.is_set():
            return "stopping: in-flight work is finishing, then the worker exits"
        if self.tools is not None and (waiting := self.tools()) is not None:
            return waiting
        if self.worker is None:
            return "starting: connecting to Temporal"
        if not self.worker.is_running:
            return "stopped" if self.worker.is_shutdown else "starting: not polling yet"
        if self.database is not None:
            try:
                async with asyncio.timeout(PING_SECONDS):
                    await self.database.ping()
            except (DatabaseError, TimeoutError):
                return f"database {self.database.describe()} does not answer"
        return None
