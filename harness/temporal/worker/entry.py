"""The worker entry point: build the HookManager, run the Temporal worker.

The manager is :func:`harness.plugins.build_manager`'s (re-exported here).

``python -m harness.worker`` and the ``tiny-harness-worker`` script call
:func:`harness.temporal.worker.main`, which checks the settings and the payload key
(:mod:`.start`) before importing this module, then calls :func:`run`.
A stop signal runs the ``shutdown`` operation, then in-flight activities get
``shutdown_grace_seconds`` to finish before they are cancelled and handed back to
Temporal (the workflow retries them on the next worker). SIGHUP reloads the hooks file
(:class:`harness.hooks.HooksReload`: all or nothing, between operations, audited).
"""

from __future__ import annotations

import asyncio
import logging
import signal
from datetime import timedelta
from typing import Final, NoReturn, TypedDict

from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.worker import PollerBehaviorSimpleMaximum, Worker

from harness.bodies import BodyRuntime
from harness.config import Settings
from harness.errors import HarnessError
from harness.health import health_server
from harness.heap import freeze_startup_heap
from harness.hooks import POINTS, HookManager, HooksReload, Redactor
from harness.hooks.contexts import ShutdownContext
from harness.logs import configure_logging, install_log_redaction
from harness.loop_watch import LoopWatchdog
from harness.plugins import build_hooks
from harness.plugins import build_manager as build_manager  # the worker's, re-exported here
from harness.providers import SystemClock
from harness.startup import EXIT_STATUS
from harness.storage import Database, open_database
from harness.storage.ledger import Ledger
from harness.temporal.activity.dispatch import RetryLimits
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.codec import EncryptionCodec
from harness.temporal.keys import load_keys
from harness.temporal.vault import SealedVault
from harness.temporal.worker.connect import connect
from harness.temporal.worker.deployment import deployment_config
from harness.temporal.worker.deployment import describe as describe_deployment
from harness.temporal.worker.readiness import WorkerReadiness
from harness.temporal.worker.sandbox import workflow_runner
from harness.temporal.worker.start import leave, refuse
from harness.temporal.worker.telemetry import MetricsConfigError, worker_runtime
from harness.temporal.workflow.request import RequestWorkflow
from harness.temporal.workflow.task import TaskWorkflow
from harness.tracing import TracingConfigError, configure_tracing
from harness.tracing import describe as describe_tracing

log = logging.getLogger(__name__)


def retry_limits(settings: Settings) -> RetryLimits:
    """The most a retry decision may ask for on this worker, whatever its executors decide."""
    return RetryLimits(
        max_backoff_seconds=settings.retry_max_backoff_seconds,
        max_attempts=settings.retry_max_attempts,
    )


def describe(manager: HookManager) -> list[str]:
    """One line per registration, in run order: ``point priority name``."""
    return [
        f"{reg.point} {reg.priority} {reg.name}"
        for point in POINTS
        for reg in manager.registrations(point)
    ]


class WorkerTuning(TypedDict, total=False):
    """The ``Worker`` arguments the ``HARNESS_WORKER_*`` settings give; unset keeps the SDK's."""

    max_concurrent_activities: int
    max_concurrent_workflow_tasks: int
    activity_task_poller_behavior: PollerBehaviorSimpleMaximum
    workflow_task_poller_behavior: PollerBehaviorSimpleMaximum


def tuning(settings: Settings) -> WorkerTuning:
    """Slots and pollers from ``settings``; only what is set, so the SDK's defaults stay its own."""
    tuned = WorkerTuning()
    if settings.worker_max_concurrent_activities is not None:
        tuned["max_concurrent_activities"] = settings.worker_max_concurrent_activities
    if settings.worker_max_concurrent_workflow_tasks is not None:
        tuned["max_concurrent_workflow_tasks"] = settings.worker_max_concurrent_workflow_tasks
    if settings.worker_activity_pollers is not None:
        tuned["activity_task_poller_behavior"] = PollerBehaviorSimpleMaximum(
            settings.worker_activity_pollers
        )
    if settings.worker_workflow_pollers is not None:
        tuned["workflow_task_poller_behavior"] = PollerBehaviorSimpleMaximum(
            settings.worker_workflow_pollers
        )
    return tuned


WORKFLOWS: Final = (TaskWorkflow, RequestWorkflow)


def build_worker(client: Client, settings: Settings, activities: HarnessActivities) -> Worker:
    """The Temporal worker running :class:`TaskWorkflow` and every hooked activity."""
    activities.shutdown_grace_seconds = settings.shutdown_grace_seconds  # local steps' too
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=list(WORKFLOWS),
        activities=activities.activities(),
        workflow_runner=workflow_runner(WORKFLOWS, client.data_converter),
        # The SDK's external storage is unused (large payloads are the codec's, offload.py);
        # above 1 its visitor makes an asyncio task per payload of every workflow task.
        max_workflow_task_external_storage_concurrency=1,
        graceful_shutdown_timeout=timedelta(seconds=settings.shutdown_grace_seconds),
        sticky_queue_schedule_to_start_timeout=timedelta(
            seconds=settings.sticky_queue_timeout_seconds
        ),
        deployment_config=deployment_config(settings),
        **tuning(settings),
    )


async def serve(
    settings: Settings,
    stop: asyncio.Event,
    *,
    client: Client | None = None,
    manager: HookManager | None = None,
    runtime: Runtime | None = None,
    readiness: WorkerReadiness | None = None,
    reloads: asyncio.Queue[str] | None = None,
    freeze_heap: bool = False,
) -> str:
    """Run a worker until ``stop`` is set, then shut down gracefully.

    A stop while Temporal is still being reached ends the wait and shuts down at once.

    Args:
        settings: the worker's settings.
        stop: set by a stop signal.
        client: a connected client; :func:`connect` makes one when ``None``.
        manager: the hook manager, used as built (its monitors are its builder's);
            :func:`build_manager` makes one, with this runtime's counters and the
            database of ``settings`` (opened here, closed at the end), when ``None``.
        runtime: the SDK runtime :func:`connect` connects in (its telemetry).
        readiness: told the worker once there is one (``/readyz``, :mod:`harness.health`).
        reloads: each item asks for a hot reload of the hooks file, naming what asked
            (``SIGHUP``); a manager given by the caller has no file to reload.
        freeze_heap: the process is this worker's (``python -m harness.worker``): once it is
            built, what start-up built is frozen out of the garbage collector's way
            (:func:`harness.heap.freeze_startup_heap`; a full collection walked it in 100-190
            ms, one every ~180 messages under bench/load.py). Not in a test's process.

    Returns:
        What the ``shutdown`` operation's body reported.
    """
    reload: HooksReload | None = None
    # One database for the process's stores and the local attempts' claims, closed last.
    database = await open_database(
        settings.database, pool_size=settings.database_pool_size, migrate=settings.database_migrate
    )
    if manager is None:
        meter = None
        if runtime is not None and settings.metrics_address is not None:  # a metrics endpoint
            meter = runtime.metric_meter
        try:
            manager, reload = build_hooks(settings, database, meter=meter)
        except BaseException:
            await database.aclose()
            raise
    if readiness is not None:
        readiness.database = database
    # The manager's redactor also knows the hooks file's header secrets: it scrubs every log line.
    unredact = install_log_redaction(manager.redactor)
    stopping: asyncio.Task[bool] | None = None
    reloading = asyncio.create_task(_reload_on(reloads, reload)) if reloads is not None else None
    # Names an executor that blocks the loop, which stops every heartbeat (issue 26); from
    # the first poll on: building the worker blocks it for seconds (the sandbox's imports).
    watchdog = LoopWatchdog(warn_after=settings.loop_block_warn_seconds)
    try:
        body_runtime = BodyRuntime.of(manager)
        listed = True
        if body_runtime is not None:  # MCP tool servers: listed once the event loop runs
            if readiness is not None:
                readiness.tools = body_runtime.waiting_for
            # Until every one is listed nothing polls: no task gets a smaller catalogue.
            listed = await body_runtime.start(stop=stop)
        for line in describe(manager):
            log.info("registered %s", line)
        if listed:
            client = client or await connect(settings, stop=stop, runtime=runtime)
        if not listed or client is None:  # stopped before polling: nothing ran, nothing in flight
            reason = (
                "stop requested while connecting to Temporal"
                if listed
                else "stop requested while listing MCP tool servers"
            )
            last = ShutdownContext(reason=reason)
            done = await manager.run(last.operation, last)
            log.info("%s", done.result)
            return done.result or ""
        activities = HarnessActivities(
            manager,
            clock=SystemClock(),
            heartbeat_seconds=settings.activity_heartbeat_seconds / 3,
            retry_limits=retry_limits(settings),
            claims=Ledger.over(database),
            vault=_vault(settings, database),
        )
        worker = build_worker(client, settings, activities)
        if freeze_heap:  # the process is this worker's: what start-up built lives as long
            frozen = freeze_startup_heap()
            log.info("froze %d start-up objects out of the garbage collector's way", frozen)
        if readiness is not None:
            readiness.worker = worker
        where = client.service_client.config.target_host
        log.info(
            "worker on %s, namespace %s, task queue %s, %s",
            where,
            client.namespace,
            settings.task_queue,
            describe_deployment(settings),
        )
        watchdog.start()
        running = asyncio.create_task(worker.run())
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():  # the worker died on its own (e.g. a fatal poll error)
            running.result()
        last = ShutdownContext(reason="stop requested", in_flight=activities.in_flight)
        done = await manager.run(last.operation, last)
        log.info("%s", done.result)
        await worker.shutdown()
        await running
    finally:
        watchdog.stop()
        if stopping is not None:
            stopping.cancel()
        if reloading is not None:
            reloading.cancel()
        if reload is not None:
            await reload.aclose()  # what a reload removed and operations still held
        await manager.aclose()  # remote executors' pools, MCP sessions, queued audit records
        await database.aclose()
        unredact()
    return done.result or ""


async def _reload_on(requests: asyncio.Queue[str], reload: HooksReload | None) -> None:
    """Reload the hooks file once per request, one at a time (the reload audits each)."""
    while True:
        trigger = await requests.get()
        if reload is None:
            log.warning(
                "%s: this worker's manager was built by its caller; no hooks file to reload",
                trigger,
            )
            continue
        await reload.reload(trigger=trigger)


def run(settings: Settings) -> NoReturn:
    """Run the worker of checked ``settings`` until SIGINT or SIGTERM; SIGHUP reloads the hooks.

    :func:`harness.temporal.worker.main` has read the settings and the payload key
    (the refusals that need none of the imports above); what is refused from here on (a
    bad hooks file or plugin, a model with no provider, a taken health port, a database it
    cannot reach) is refused the same way: one line on stderr, exit status 2.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # From the first line on (plugins log while they register); serve() adds the hooks
    # file's header secrets once the manager exists.
    install_log_redaction(Redactor(secrets=settings.secret_values()))
    configure_logging(settings.log_format)
    try:  # spans and metrics: OTEL_* and HARNESS_METRICS_ADDRESS (issue 11)
        tracing = configure_tracing(service="tiny-harness-worker")
        runtime = worker_runtime(settings)
    except (TracingConfigError, MetricsConfigError) as error:
        refuse(error, settings)
    log.info(
        "%s; %s",
        describe_tracing(tracing),
        f"metrics on http://{settings.metrics_address}/metrics"
        if settings.metrics_address
        else "no metrics endpoint",
    )

    async def serving() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        reloads: asyncio.Queue[str] = asyncio.Queue()
        loop.add_signal_handler(signal.SIGHUP, reloads.put_nowait, "SIGHUP")
        readiness = WorkerReadiness(stop)
        try:
            async with health_server(
                settings.health_host, settings.health_port, readiness, setting="HARNESS_HEALTH_PORT"
            ):
                await serve(
                    settings,
                    stop,
                    runtime=runtime,
                    readiness=readiness,
                    reloads=reloads,
                    freeze_heap=True,
                )
        except HarnessError as error:
            if readiness.worker is not None:  # it ran: not a start-up problem
                raise
            refuse(error, settings)

    status = 0
    try:
        asyncio.run(serving())
    except SystemExit as refused:  # refuse() inside the loop: its line is written already
        status = refused.code if isinstance(refused.code, int) else EXIT_STATUS
    finally:
        if tracing is not None:
            tracing.shutdown()  # exports what is still batched
    leave(status)


def _vault(settings: Settings, database: Database) -> SealedVault:
    """Messages sent by reference, sealed with the payload key, in the shared database."""
    keys = load_keys(settings)
    return SealedVault(database, EncryptionCodec(keys), secret=keys[0].secret)
