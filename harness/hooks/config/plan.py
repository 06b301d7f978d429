"""A resolved executor configuration and how it is applied: build everything, then register.

:meth:`HooksConfig.apply` constructs every executor first (a factory that raises, a
remote executor that cannot be built), and only then registers them; a failure while
registering unregisters what was added, so a manager never runs a partial chain.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, final

from harness.domain import RetryDefaults
from harness.hooks.catalogue import POINTS
from harness.hooks.config.schema import ExecutorEntry, HooksFile
from harness.hooks.config.wrappers import ConfiguredExecutor, FieldMatch
from harness.hooks.errors import HookConfigError
from harness.hooks.executor import Executor, Registration
from harness.hooks.manager import HookManager
from harness.hooks.modes import Mode

log = logging.getLogger(__name__)


@final
@dataclass(frozen=True)
class ResolvedEntry:
    """An ``[[executor]]`` entry with what it names found: import target, header values, command."""

    entry: ExecutorEntry
    index: int
    label: str
    target: object = None
    is_factory: bool = False
    headers: dict[str, str] = field(default_factory=dict)
    command: tuple[str, ...] | None = None
    cwd: Path = Path()
    signing_secrets: tuple[str, ...] = ()
    tls: ssl.SSLContext | None = None


@final
@dataclass
class AppliedHooks:
    """What :meth:`HooksConfig.apply` added; :meth:`remove` takes it all back."""

    manager: HookManager
    registrations: list[Registration] = field(default_factory=list)
    undo: list[Callable[[], None]] = field(default_factory=list)

    def remove(self) -> None:
        """Unregister every executor and undo every monitor, newest first."""
        for reg in reversed(self.registrations):
            self.manager.unregister(reg)
        for undo in reversed(self.undo):
            undo()
        self.registrations.clear()
        self.undo.clear()


@final
@dataclass(frozen=True)
class HooksConfig:
    """A validated, resolved configuration file (from :func:`load_hooks_config`)."""

    source: str
    file: HooksFile
    entries: tuple[ResolvedEntry, ...]

    def retry_defaults(self, base: RetryDefaults | None = None) -> RetryDefaults:
        """``base`` with what ``[retry]`` sets (for the ``activity.failed`` body)."""
        base = base or RetryDefaults()
        section = self.file.retry
        if section is None:
            return base
        changes: dict[str, Any] = {
            name: value
            for name in ("max_attempts", "initial_seconds", "multiplier", "maximum_seconds",
                         "jitter")
            if (value := getattr(section, name)) is not None
        }  # fmt: skip
        if section.non_retryable:
            changes["non_retryable"] = frozenset(section.non_retryable)
        return dataclasses.replace(base, **changes)

    def apply(self, manager: HookManager) -> AppliedHooks:
        """Build every configured executor, then register them all on ``manager``.

        Also teaches the manager's redactor the header secrets, installs the chain
        budget and, when ``[observability]`` asks, tracing and the operation log.

        Returns:
            What was added, to log or remove.

        Raises:
            HookConfigError: an executor could not be built; nothing was registered.
        """
        for entry in self.entries:
            for secret in entry.headers.values():
                manager.redactor.add_secret(secret)
            for secret in entry.signing_secrets:
                manager.redactor.add_secret(secret)
                manager.redactor.add_secret(secret.removeprefix("whsec_"))
        planned = self._build(manager)
        applied = AppliedHooks(manager)
        try:
            for point, executor, priority, mode in planned:
                applied.registrations.append(
                    manager.register(point, executor, priority=priority, mode=mode)
                )
            self._monitors(manager, applied)
        except BaseException:
            applied.remove()
            raise
        for line in describe_chains(manager):
            log.info("hook chain %s", line)
        return applied

    def _build(self, manager: HookManager) -> list[tuple[str, Executor, int, Mode]]:
        planned: list[tuple[str, Executor, int, Mode]] = []
        problems: list[str] = []
        for resolved in self.entries:
            entry = resolved.entry
            try:
                for point, inner, closers in _executors(resolved, manager):
                    wrapped = ConfiguredExecutor(
                        inner,
                        point=point,
                        name=resolved.label,
                        kind=entry.kind,
                        matchers=[FieldMatch(k, p) for k, p in entry.match.items()],
                        timeout=entry.timeout if entry.kind == "local" else None,
                        on_failure=entry.on_failure,
                        audit=manager.audit,
                        closers=closers,
                    )
                    planned.append((point, wrapped, entry.priority, entry.mode))
            except Exception as error:  # a factory or constructor: report, register nothing
                problems.append(f"{resolved.label}: cannot build: {type(error).__name__}: {error}")
        policy = self.file.policy
        if policy is not None and policy.rules:
            from harness.hooks.monitors.policy import POLICY_POINTS, Policy

            rules = Policy(policy.rules, default=policy.default)
            planned += [(p, rules, policy.priority, policy.mode) for p in POLICY_POINTS]
        if problems:
            raise HookConfigError(source=self.source, problems=problems)
        return planned

    def _monitors(self, manager: HookManager, applied: AppliedHooks) -> None:
        budget = self.file.chain.budget_seconds
        if budget is not None:
            from harness.hooks.monitors.budget import install_budget

            applied.undo.append(install_budget(manager, budget))
        observability = self.file.observability
        if observability.logs:
            from harness.hooks.monitors.oplog import install_operation_log

            applied.undo.append(install_operation_log(manager))
        if observability.tracing:
            from harness.hooks.monitors.otel import register_tracing

            traced = register_tracing(manager)
            if traced is not None:
                applied.undo.append(traced)


Built = tuple[str, Executor, tuple[Callable[[], Awaitable[None]], ...]]


def _executors(resolved: ResolvedEntry, manager: HookManager) -> list[Built]:
    """Each point's executor and what closes its connections (once per entry)."""
    entry = resolved.entry
    if entry.kind == "local":
        if not resolved.is_factory:
            return [(p, resolved.target, ()) for p in entry.points]  # type: ignore[misc]  # checked async callable at load
        factory: Callable[..., Executor] = resolved.target  # type: ignore[assignment]  # checked callable at load
        if "point" in inspect.signature(factory).parameters:
            made = [(p, _check(factory(point=p, **entry.options), resolved)) for p in entry.points]
        else:
            shared = _check(factory(**entry.options), resolved)
            made = [(p, shared) for p in entry.points]
        return [(p, ex, _closer(ex) if i == 0 or ex is not made[0][1] else ())
                for i, (p, ex) in enumerate(made)]  # fmt: skip
    if entry.kind == "jsonrpc":
        from harness.hooks.remote.jsonrpc import DEFAULT_TIMEOUT, JsonRpcExecutor

        assert entry.url is not None  # the schema requires it
        built: list[Built] = []
        for p in entry.points:
            remote = JsonRpcExecutor(
                entry.url, point=p, headers=resolved.headers, name=f"{resolved.label}#{p}",
                redactor=manager.redactor, timeout=entry.timeout or DEFAULT_TIMEOUT,
                idempotency_header=not entry.idempotent,
                signing_secrets=resolved.signing_secrets, ssl=resolved.tls,
            )  # fmt: skip
            built.append((p, remote, (remote.aclose,)))
        return built
    from harness.hooks.remote.mcp import DEFAULT_TIMEOUT as MCP_TIMEOUT
    from harness.hooks.remote.mcp import McpExecutor
    from harness.hooks.remote.mcp_connection import McpConnection

    server = resolved.command if resolved.command is not None else entry.url
    assert server is not None  # the schema requires one
    connection = McpConnection(server, cwd=resolved.cwd,  # one session for all its points
                               ssl=resolved.tls)  # fmt: skip
    return [
        (p, McpExecutor(connection, point=p, redactor=manager.redactor,
                        name=f"{resolved.label}#{p}", timeout=entry.timeout or MCP_TIMEOUT),
         (connection.aclose,) if i == 0 else ())
        for i, p in enumerate(entry.points)
    ]  # fmt: skip


def _closer(executor: object) -> tuple[Callable[[], Awaitable[None]], ...]:
    close = getattr(executor, "aclose", None)
    return (close,) if callable(close) else ()


def _check(executor: object, resolved: ResolvedEntry) -> Executor:
    call = getattr(executor, "__call__", None)  # noqa: B004  # an object with an async __call__
    if not (inspect.iscoroutinefunction(executor) or inspect.iscoroutinefunction(call)):
        raise TypeError(f"factory {resolved.entry.target} returned {executor!r}, not an executor")
    return executor  # type: ignore[return-value]  # checked just above


def describe_chains(manager: HookManager) -> list[str]:
    """One line per non-empty point: ``point: priority name (kind, mode), ...`` in run order."""
    lines = []
    for point in POINTS:
        regs = manager.registrations(point)
        if regs:
            items = ", ".join(
                f"{reg.priority} {reg.name} ({executor_kind(reg.executor)}, {reg.mode})"
                for reg in regs
            )
            lines.append(f"{point}: {items}")
    return lines


def executor_kind(executor: object) -> str:
    """``local``, ``jsonrpc`` or ``mcp``, looking through mode and configuration wrappers."""
    while True:
        kind = getattr(executor, "kind", None)
        if isinstance(kind, str):
            return kind
        inner = getattr(executor, "inner", None)
        if inner is None:
            break
        executor = inner
    name = type(executor).__name__
    return {"JsonRpcExecutor": "jsonrpc", "McpExecutor": "mcp"}.get(name, "local")
