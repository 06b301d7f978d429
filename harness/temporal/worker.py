"""The worker entry point: build the HookManager, register plugins, run the Temporal worker.

``python -m harness.worker`` and the ``tiny-harness-worker`` script call :func:`main`.
A stop signal runs the ``shutdown`` operation, then in-flight activities get
``shutdown_grace_seconds`` to finish before they are cancelled and handed back to
Temporal (the workflow retries them on the next worker).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

from harness.agent.runtime import AgentRuntime
from harness.audit_store import SqliteAuditStore
from harness.config import Settings
from harness.hooks import (
    POINTS,
    HookManager,
    Redactor,
    RetryDefaults,
    load_hooks_config,
    register_builtin,
)
from harness.hooks.contexts import ShutdownContext
from harness.logs import install_log_redaction
from harness.plugins import register_plugins
from harness.providers import SystemClock, system_random
from harness.store import ArtefactStore, SqliteArtefactStore
from harness.temporal.activities import HarnessActivities
from harness.temporal.codec import data_converter
from harness.temporal.dispatch import RetryLimits
from harness.temporal.errors import PayloadKeyError
from harness.temporal.keys import load_keys
from harness.temporal.requests import RequestWorkflow
from harness.temporal.workflows import TaskWorkflow

log = logging.getLogger(__name__)


def build_manager(settings: Settings, store: ArtefactStore) -> HookManager:
    """A manager with the built-in plugins (task, agent loop, channel) and configured ones.

    Code plugins are ``settings.plugins`` (``module:function`` paths, each called with
    the manager and the settings, see :mod:`harness.plugins`); executors described
    without code come from ``settings.hooks_config``.

    Raises:
        HookConfigError: ``settings.hooks_config`` is invalid, or a plugin path does
            not resolve (every problem named).
    """
    # Every secret the worker holds is masked wherever it shows up, whatever its shape.
    manager = HookManager(
        redactor=Redactor(secrets=settings.secret_values()), max_depth=settings.hook_max_depth
    )
    manager.audit.sinks.append(SqliteAuditStore(settings.artefact_store_path))
    # Read and resolved before anything registers: a bad file fails the start, all or nothing.
    hooks = load_hooks_config(settings.hooks_config) if settings.hooks_config else None
    retry = RetryDefaults(
        initial_seconds=settings.retry_initial_backoff_seconds,
        multiplier=settings.retry_backoff_multiplier,
        maximum_seconds=settings.retry_max_backoff_seconds,
    )
    retry = hooks.retry_defaults(retry) if hooks else retry
    register_builtin(manager, store=store, random=system_random(), retry=retry)
    AgentRuntime(settings, store).register(manager)  # the agent loop's and the channel's bodies
    register_plugins(manager, settings)
    if hooks is not None:
        hooks.apply(manager)  # logs the resulting chain of every point
    return manager


def retry_limits(settings: Settings) -> RetryLimits:
    """The most a retry decision may ask for on this worker, whatever its executors decide."""
    return RetryLimits(max_backoff_seconds=settings.retry_max_backoff_seconds,
                       max_attempts=settings.retry_max_attempts)  # fmt: skip


def describe(manager: HookManager) -> list[str]:
    """One line per registration, in run order: ``point priority name``."""
    return [
        f"{reg.point} {reg.priority} {reg.name}"
        for point in POINTS
        for reg in manager.registrations(point)
    ]


def build_worker(client: Client, settings: Settings, activities: HarnessActivities) -> Worker:
    """The Temporal worker running :class:`TaskWorkflow` and every hooked activity."""
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=[TaskWorkflow, RequestWorkflow],
        activities=activities.activities(),
        graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_grace_seconds),
        sticky_queue_schedule_to_start_timeout=timedelta(
            seconds=settings.sticky_queue_timeout_seconds
        ),
    )


async def connect(settings: Settings, *, patience: float = 30.0) -> Client:
    """Connect to Temporal, waiting up to ``patience`` seconds for it to come up.

    ``make run`` starts the dev server and the worker together; the server needs a
    moment before it accepts connections. Payloads are encrypted with the configured
    keys (:mod:`harness.temporal.codec`); without one there is nothing to wait for.

    Raises:
        PayloadKeyError: no payload key is configured, or one is malformed.
        RuntimeError: still unreachable after ``patience`` seconds.
    """
    converter = data_converter(load_keys(settings))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while True:
        try:
            return await Client.connect(
                settings.temporal_address,
                namespace=settings.temporal_namespace,
                data_converter=converter,
            )
        except RuntimeError as error:  # how the SDK reports an unreachable server
            if loop.time() >= deadline:
                raise
            log.info("waiting for Temporal at %s: %s", settings.temporal_address, error)
            await asyncio.sleep(0.5)


async def serve(
    settings: Settings, stop: asyncio.Event, *, client: Client | None = None,
    manager: HookManager | None = None,
) -> str:  # fmt: skip
    """Run a worker until ``stop`` is set, then shut down gracefully.

    Returns:
        What the ``shutdown`` operation's body reported.
    """
    store = SqliteArtefactStore(settings.artefact_store_path)
    manager = manager or build_manager(settings, store)
    # The manager's redactor also knows the hooks file's header secrets: it scrubs every log line.
    unredact = install_log_redaction(manager.redactor)
    runtime = AgentRuntime.of(manager)
    if runtime is not None:
        await runtime.start()  # MCP tool servers: listed once the event loop runs
    for line in describe(manager):
        log.info("registered %s", line)
    client = client or await connect(settings)
    activities = HarnessActivities(
        manager, clock=SystemClock(), heartbeat_seconds=settings.activity_heartbeat_seconds / 3,
        retry_limits=retry_limits(settings),
    )  # fmt: skip
    worker = build_worker(client, settings, activities)
    log.info("worker on %s, task queue %s", settings.temporal_address, settings.task_queue)
    running = asyncio.create_task(worker.run())
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():  # the worker died on its own (e.g. a fatal poll error)
            running.result()
        done = await manager.run(
            "shutdown", ShutdownContext(reason="stop requested", in_flight=activities.in_flight)
        )
        log.info("%s", done.result)
        await worker.shutdown()
        await running
    finally:
        stopping.cancel()
        await manager.aclose()  # configured remote executors' HTTP pools and MCP sessions
        store.close()
        unredact()
    return done.result or ""


def main() -> None:
    """Run the worker until SIGINT or SIGTERM; exit 2 with one line when no payload key is set."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = Settings()
    try:
        load_keys(settings)  # before anything starts: no key, no worker (issue 9)
    except PayloadKeyError as error:
        print(f"worker not starting: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # From the first line on (plugins log while they register); serve() adds the hooks
    # file's header secrets once the manager exists.
    install_log_redaction(Redactor(secrets=settings.secret_values()))

    async def run() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(settings, stop)

    asyncio.run(run())


if __name__ == "__main__":
    main()
