"""The worker: its entry point, its wait for Temporal, readiness, telemetry and deployment.

``tiny-harness-worker`` (``harness.temporal.worker:main``) and ``python -m harness.worker``
call :func:`main`; tests run a worker with :func:`serve` or :func:`build_worker`. Nothing
of the harness imports this package but those programs: the worker sits above every role.
"""

from __future__ import annotations

from harness.temporal.worker.entry import (
    build_manager,
    build_worker,
    describe,
    main,
    retry_limits,
    serve,
)

__all__ = ["build_manager", "build_worker", "describe", "main", "retry_limits", "serve"]
