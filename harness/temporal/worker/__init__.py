"""The worker: its entry point, its wait for Temporal, readiness, telemetry and deployment.

``tiny-harness-worker`` (``harness.temporal.worker:main``) and ``python -m harness.worker``
call :func:`main`; tests run a worker with :func:`serve` or :func:`build_worker`. Nothing
of the harness imports this package but those programs: the worker sits above every role.
:func:`main` refuses a bad setting before the rest loads (:mod:`.start`); the other names
load :mod:`.entry` (the Temporal SDK, the stores, every body) on first use (issue 27).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.temporal.worker.start import checked_settings

if TYPE_CHECKING:
    from harness.temporal.worker.entry import (
        build_manager,
        build_worker,
        describe,
        retry_limits,
        serve,
    )


def main() -> None:
    """Run the worker until SIGINT or SIGTERM; SIGHUP reloads the hooks file.

    Raises:
        SystemExit: 2 (:data:`~harness.startup.EXIT_STATUS`), with one line on stderr
            and no traceback, when it cannot start: a setting it cannot take, no payload
            key, a bad hooks file or plugin, a model with no provider, a taken health port,
            a database it cannot reach.
    """
    settings = checked_settings()  # refused before the rest loads
    from harness.temporal.worker.entry import run  # the SDK, the stores, every body: ~1 s

    run(settings)


_LAZY = frozenset({"build_manager", "build_worker", "describe", "retry_limits", "serve"})


def __getattr__(name: str) -> Any:  # noqa: ANN401  # module attribute protocol
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from harness.temporal.worker import entry

    value = getattr(entry, name)
    globals()[name] = value
    return value


__all__ = ["build_manager", "build_worker", "describe", "main", "retry_limits", "serve"]
