"""The slash commands: one module per command, registered on ``command.invoked`` as a plugin.

:data:`COMMANDS` is the one command list (:mod:`commands.registry`), which ``/help``,
the bot and the Slack manifest read; :func:`register_all` installs the identity seal,
the role guard and every command's filtered body on a :class:`~harness.hooks.HookManager`.
Nothing here knows Slack (``bot/``) or Temporal (``harness/temporal``): bodies compute a
:class:`CommandResult`, the workflow applies it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from commands.guard import (
    SEAL_CHECK_PRIORITY,
    SEAL_CLOSE_PRIORITY,
    SEAL_PRIORITY,
    IdentitySeal,
    RoleGuard,
)
from commands.registry import COMMANDS, Registry, invocation_of
from commands.spec import (
    DEFAULT_MODELS,
    CommandConfig,
    CommandSpec,
    UsageError,
    for_command,
    spec_executor,
)
from harness.domain import ModelPrice
from harness.hooks import BUILTIN_BODY_PRIORITY, ROLE_GUARD_PRIORITY, HookManager, Registration
from harness.providers import Clock, SystemClock
from harness.replies.umbrella import command_name


def register_all(
    manager: HookManager,
    *,
    models: Iterable[str] = DEFAULT_MODELS,
    commands: Registry = COMMANDS,
    temporal_ui_url: str = "",
    temporal_namespace: str = "default",
    clock: Clock | None = None,
    model_prices: Mapping[str, ModelPrice] | None = None,
    skills_dir: Path | None = None,
) -> list[Registration]:
    """Register the seal, the guard and every command body on ``manager``.

    Args:
        manager: the worker's hook manager.
        models: the model names ``/model <x>`` accepts; at least one.
        commands: the registry to install (tests pass a subset).
        temporal_ui_url: the Temporal Web UI, for ``/task status``'s link (``""``: none).
        temporal_namespace: the namespace tasks run in, for that link.
        clock: what ``/task status`` times with (the system clock unless given).
        model_prices: the models' prices, so ``/task budget`` knows whether a cost counts.
        skills_dir: the worker's skills directory, which bare ``/task skill`` lists.

    Returns:
        The registrations, so a caller can unregister them.

    Raises:
        ValueError: ``models`` is empty.
    """
    names = tuple(dict.fromkeys(m.strip() for m in models if m.strip()))
    if not names:
        raise ValueError("register_all needs at least one model name for /model")
    config = CommandConfig(
        models=names,
        commands=tuple(commands.values()),
        temporal_ui_url=temporal_ui_url,
        temporal_namespace=temporal_namespace,
        clock=clock or SystemClock(),
        model_prices=dict(model_prices or {}),
        skills_dir=skills_dir,
    )
    seal = IdentitySeal()
    regs = [
        manager.register("command.invoked.pre", seal.opener(), priority=SEAL_PRIORITY),
        manager.register("command.invoked.pre", seal.checker(), priority=SEAL_CHECK_PRIORITY),
        manager.register("command.invoked.pre", RoleGuard(commands), priority=ROLE_GUARD_PRIORITY),
        manager.register("command.invoked.post", seal.closer(), priority=SEAL_CLOSE_PRIORITY),
    ]
    for name, spec in commands.items():
        body = for_command(name, spec_executor(spec, config))
        regs.append(manager.register("command.invoked.in", body, priority=BUILTIN_BODY_PRIORITY))
    return regs


def plugin(manager: HookManager, settings: Any) -> list[Registration]:  # noqa: ANN401  # worker plugins take the harness Settings, which this package must not import
    """Worker plugin entry (``HARNESS_PLUGINS='["commands:plugin"]'``).

    Uses ``settings.models`` when the settings have it, else :data:`DEFAULT_MODELS`, and
    ``settings.temporal_ui_url`` with ``temporal_namespace`` for ``/task status``'s link,
    ``settings.skills_dir`` for the skills bare ``/task skill`` lists, and
    ``settings.model_prices`` for ``/task budget``.
    """
    return register_all(
        manager,
        models=getattr(settings, "models", None) or DEFAULT_MODELS,
        temporal_ui_url=getattr(settings, "temporal_ui_url", ""),
        temporal_namespace=getattr(settings, "temporal_namespace", "default"),
        model_prices=getattr(settings, "model_prices", None),
        skills_dir=getattr(settings, "skills_dir", None),
    )


__all__ = [
    "COMMANDS",
    "DEFAULT_MODELS",
    "CommandConfig",
    "CommandSpec",
    "Registry",
    "UsageError",
    "command_name",
    "for_command",
    "invocation_of",
    "plugin",
    "register_all",
]
