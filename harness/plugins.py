"""Code plugins, and the chains a worker would register, built without running a worker.

A plugin is a ``module:function`` path (``HARNESS_PLUGINS``) called with
``(manager, settings)``; the harness imports it by name, so it never imports
``commands`` or any other plugin package itself (DESIGN.md: harness imports
nothing from bot/ or commands/). :func:`effective_manager` registers what the
worker registers, in the same order, for the hooks CLI and the bot's start-up
check; the worker itself lives in :mod:`harness.temporal.worker`.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from harness.config import Settings
from harness.hooks import (
    HookConfigError,
    HookManager,
    RetryDefaults,
    load_hooks_config,
    register_builtin,
)

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


@contextlib.asynccontextmanager
async def effective_manager(
    settings: Settings, *, config: Path | None = None
) -> AsyncIterator[HookManager]:
    """A manager with the built-in plugins, the code plugins and the hooks file, as the worker has.

    The order is :func:`harness.temporal.worker.build_manager`'s, so equal priorities
    list as they run. Nothing runs on it: the artefact store is in memory and never
    called, and what holds connections (remote executors, the agent runtime's HTTP
    client) is closed on exit.

    Args:
        settings: the plugins and retry defaults (``settings.hooks_config`` is not read).
        config: the hooks file, or ``None`` for none.

    Raises:
        HookConfigError: the file or a plugin path is wrong, every problem named.
    """
    from harness.agent.runtime import AgentRuntime
    from harness.providers import system_random
    from harness.store import SqliteArtefactStore

    hooks = load_hooks_config(config) if config is not None else None  # all or nothing, first
    retry = RetryDefaults(
        initial_seconds=settings.retry_initial_backoff_seconds,
        multiplier=settings.retry_backoff_multiplier,
        maximum_seconds=settings.retry_max_backoff_seconds,
    )
    manager = HookManager()
    store = SqliteArtefactStore(Path(":memory:"))
    try:
        register_builtin(manager, store=store, random=system_random(),
                         retry=hooks.retry_defaults(retry) if hooks else retry)  # fmt: skip
        AgentRuntime(settings, store).register(manager)  # the loop's and the channel's bodies
        register_plugins(manager, settings)
        if hooks is not None:
            hooks.apply(manager)
        yield manager
    finally:
        await manager.aclose()
        store.close()
