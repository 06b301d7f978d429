"""Code plugins, and build_manager: the one place a worker's HookManager is assembled.

A plugin is a ``module:function`` path (``HARNESS_PLUGINS``) called with
``(manager, settings)``; the harness imports it by name, so it never imports
``commands`` or any other plugin package itself (DESIGN.md: harness imports
nothing from bot/ or commands/). :func:`build_manager` is what the worker runs
(:mod:`harness.temporal.worker`), and what tests build; :func:`effective_manager` is
the same manager, built without a worker for the hooks CLI and the bot's start-up check.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from harness.config import Settings
from harness.domain import DEFAULT_APPROVALS, RetryDefaults
from harness.hooks import (
    HookConfigError,
    HookManager,
    HooksReload,
    Redactor,
    load_hooks_config,
    register_approvals,
)

if TYPE_CHECKING:
    from temporalio.common import MetricMeter

    from harness.storage import Database

Plugin = Callable[[HookManager, Settings], Any]

PLUGINS_SOURCE = "HARNESS_PLUGINS"
"""What a plugin problem names as its source, so the operator knows which setting to fix."""


def load_plugin(path: str) -> Plugin:
    """Resolve ``module:function`` (``module`` alone means ``module:register``).

    Raises:
        HookConfigError: the module cannot be imported or has no such callable; a
            plugin path is configuration, so it fails the same way a bad hooks file does.
    """
    module_name, _, name = path.partition(":")
    try:
        plugin: object = getattr(importlib.import_module(module_name), name or "register")
    except ImportError as error:
        problem = f"{path}: cannot import {module_name!r}: {error}"
        raise HookConfigError(source=PLUGINS_SOURCE, problems=[problem]) from None
    except AttributeError:
        problem = f"{path}: {module_name!r} has no attribute {name or 'register'!r}"
        raise HookConfigError(source=PLUGINS_SOURCE, problems=[problem]) from None
    if not callable(plugin):
        raise HookConfigError(source=PLUGINS_SOURCE, problems=[f"{path}: is not callable"])
    return plugin


def register_plugins(manager: HookManager, settings: Settings) -> None:
    """Call every plugin of ``settings.plugins`` with the manager and the settings, in order.

    Raises:
        HookConfigError: a path does not resolve (nothing after it is registered).
    """
    for path in settings.plugins:
        load_plugin(path)(manager, settings)


def build_manager(
    settings: Settings, database: Database, *, meter: MetricMeter | None = None
) -> HookManager:
    """The worker's manager, as :func:`build_hooks` assembles it (without its reload)."""
    return build_hooks(settings, database, meter=meter).manager


class WorkerHooks(NamedTuple):
    """A worker's manager and what reloads its hooks file into it (SIGHUP, issue 15)."""

    manager: HookManager
    reload: HooksReload


def build_hooks(
    settings: Settings, database: Database, *, meter: MetricMeter | None = None
) -> WorkerHooks:
    """The worker's manager: redactor, audit sink, monitors, default bodies, plugins, hooks file.

    In this order: the hooks file (``settings.hooks_config``) is read and resolved
    before anything registers, so a bad file fails the start, all or nothing; then the
    default bodies (:func:`harness.bodies.register_defaults`), the approval policy (the
    file's ``[approvals]``, or its defaults), the code plugins of
    ``settings.plugins``, and the file's executors, so equal priorities run in that
    order. Every secret the worker holds is masked wherever it shows up. Monitors:
    operation counters on ``meter``, and spans when the process has an SDK tracer
    provider (:func:`harness.tracing.configure_tracing` found an exporter), so an
    unconfigured worker pays for neither. The artefact store and the audit sink share
    ``database``, which the caller opened and closes (after the manager), with the
    decisions of the hooks file's pure executors (:mod:`harness.storage.decisions`).

    Args:
        settings: the worker's settings.
        database: the harness's database (artefacts behind ``persistence.read`` and
            ``persistence.write`` and the artefact tools; the audit table).
        meter: where to count operations (the worker's Temporal runtime meter, when it
            serves metrics); no counters when ``None``.

    Returns:
        The manager, and its :class:`HooksReload` (grace: an activity's start-to-close
        timeout); closing the manager (``aclose``) closes the bodies' HTTP client and
        sessions and writes the audit records still queued.

    Raises:
        HookConfigError: ``settings.hooks_config`` is invalid, or a plugin path does
            not resolve (every problem named).
    """
    from harness.bodies import BodyRuntime, catalogue_of, register_defaults
    from harness.providers import system_random
    from harness.storage import TranscriptStore
    from harness.storage.artefacts import SqlArtefactStore
    from harness.storage.audit import SqlAuditStore
    from harness.storage.decisions import SqlDecisionStore

    hooks = (
        load_hooks_config(settings.hooks_config, audit_only=settings.hooks_audit_only)
        if settings.hooks_config
        else None
    )
    retry = RetryDefaults(
        initial_seconds=settings.retry_initial_backoff_seconds,
        multiplier=settings.retry_backoff_multiplier,
        maximum_seconds=settings.retry_max_backoff_seconds,
    )
    secrets = settings.secret_values()
    redactor = (
        hooks.file.redaction.redactor(secrets=secrets) if hooks else Redactor(secrets=secrets)
    )
    manager = HookManager(redactor=redactor, max_depth=settings.hook_max_depth)
    manager.audit.sinks.append(SqlAuditStore(database))
    register_monitors(manager, meter)
    retry = hooks.retry_defaults(retry) if hooks else retry
    store = SqlArtefactStore(database)
    runtime = BodyRuntime(settings, store, transcripts=TranscriptStore(database))
    approvals = hooks.live_approvals if hooks else None
    default = approvals.default if approvals else DEFAULT_APPROVALS
    deps = runtime.deps(random=system_random(), retry=retry, approvals=default)
    register_defaults(manager, deps)
    catalogue = catalogue_of(deps.tools)  # approvals by policy (issue 14): the tools' own word
    policy, *_ = register_approvals(
        manager,
        approvals,
        needs_approval=catalogue.approval,
        safe=catalogue.safe,
        audited=hooks.file.approvals if hooks and hooks.audit_only else None,
    )
    register_plugins(manager, settings)
    # Pure executors' decisions live in the database every worker shares (issue 15).
    decisions = SqlDecisionStore(database)
    applied = (
        hooks.apply(manager, decisions=decisions)  # logs every point's chain
        if hooks is not None
        else None
    )
    if hooks is not None and hooks.file.observability.executor_stats:
        register_stats(manager, database, meter)
    reload = HooksReload(
        manager,
        settings.hooks_config,
        hooks,
        applied,
        approvals=policy,
        grace_seconds=settings.activity_start_to_close_seconds,
        worker=f"{socket.gethostname()} pid {os.getpid()}",
        decisions=decisions,
    )
    return WorkerHooks(manager, reload)


def register_stats(manager: HookManager, database: Database, meter: MetricMeter | None) -> None:
    """Per-executor counts and latency, flushed to ``database`` (``[observability]
    executor_stats``); on ``meter`` too, as a histogram, when the worker serves metrics."""
    from harness.hooks import register_executor_stats
    from harness.storage.executor_stats import SqlStatsStore

    register_executor_stats(manager, SqlStatsStore(database), meter=meter)


def register_monitors(manager: HookManager, meter: MetricMeter | None) -> None:
    """Counters on ``meter`` when given; spans when the process traces (an SDK provider).

    Args:
        manager: what to observe.
        meter: where to count operations, or ``None`` for no counters.
    """
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    from harness.hooks import count_observer_drops, register_metrics, register_tracing

    if meter is not None:
        register_metrics(manager, meter)
        count_observer_drops(manager.observers, meter)
    if isinstance(trace.get_tracer_provider(), TracerProvider):
        register_tracing(manager)


@contextlib.asynccontextmanager
async def effective_manager(
    settings: Settings, *, config: Path | None = None
) -> AsyncIterator[HookManager]:
    """:func:`build_manager`'s manager, built to be read: the hooks CLI and the bot's check.

    Nothing runs on it: its database is an in-memory SQLite engine that is never
    connected to (the stores are never called), and what holds connections (remote
    executors, the bodies' HTTP client) is closed on exit.

    Args:
        settings: the worker's settings (``settings.hooks_config`` is replaced by ``config``).
        config: the hooks file, or ``None`` for none.

    Raises:
        HookConfigError: the file or a plugin path is wrong, every problem named.
    """
    from sqlalchemy.ext.asyncio import create_async_engine

    from harness.storage import Database

    unused = Database(create_async_engine("sqlite+aiosqlite://"))  # connects on first use only
    try:
        manager = build_manager(settings.model_copy(update={"hooks_config": config}), unused)
        try:
            yield manager
        finally:
            await manager.aclose()
    finally:
        await unused.aclose()
