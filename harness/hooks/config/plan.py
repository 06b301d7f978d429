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
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast, final

from harness.domain import RetryDefaults
from harness.hooks.catalogue import POINTS
from harness.hooks.config.schema import ExecutorEntry, HooksFile
from harness.hooks.config.wrappers import ConfiguredExecutor, FieldMatch
from harness.hooks.errors import HookConfigError
from harness.hooks.executor import Executor, Registration, executor_kind
from harness.hooks.manager import HookManager
from harness.hooks.modes import Mode
from harness.hooks.pure import DEFAULT_TTL_SECONDS, DecisionStore, PureExecutor

if TYPE_CHECKING:
    from harness.hooks.monitors.inflight import InFlight

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


Planned = tuple[str, Executor, int, Mode]
"""``(point, executor, priority, mode)``: one registration to make (:meth:`HookManager.replace`)."""

POLICY_LABEL = "[policy]"
"""How :attr:`AppliedHooks.entries` names the ``[policy]`` rules' executor."""


@final
@dataclass
class AppliedHooks:
    """What :meth:`HooksConfig.apply` added; :meth:`remove` takes it all back."""

    manager: HookManager
    registrations: list[Registration] = field(default_factory=list)
    undo: list[Callable[[], None]] = field(default_factory=list)
    entries: dict[str, list[Planned]] = field(default_factory=dict)
    """Each entry's executors by label: what a hot reload keeps, or closes once retired."""
    in_flight: InFlight | None = None
    """Counts the operations started on these chains, when an executor holds connections."""
    config: HooksConfig | None = None
    """The file applied, whose monitors a failed reload puts back."""

    def remove(self) -> None:
        """Unregister every executor and undo every monitor, newest first."""
        for reg in reversed(self.registrations):
            self.manager.unregister(reg)
        self.unmonitor()
        self.registrations.clear()

    def unmonitor(self) -> None:
        """Undo every monitor this file installed, newest first (a reload installs its own)."""
        for undo in reversed(self.undo):
            undo()
        self.undo.clear()


@final
@dataclass(frozen=True)
class HooksConfig:
    """A validated, resolved configuration file (from :func:`load_hooks_config`)."""

    source: str
    file: HooksFile
    entries: tuple[ResolvedEntry, ...]
    audit_only: bool = False
    """Loaded as a dry run (:meth:`HooksFile.audited`); a reload reads the file the same way."""

    def retry_defaults(self, base: RetryDefaults | None = None) -> RetryDefaults:
        """``base`` with what ``[retry]`` sets (for the ``activity.failed`` body)."""
        base = base or RetryDefaults()
        section = self.file.retry
        if section is None:
            return base
        changes: dict[str, Any] = {
            name: value
            for name in (
                "max_attempts",
                "initial_seconds",
                "multiplier",
                "maximum_seconds",
                "jitter",
            )
            if (value := getattr(section, name)) is not None
        }
        if section.non_retryable:
            changes["non_retryable"] = frozenset(section.non_retryable)
        return dataclasses.replace(base, **changes)

    def apply(
        self,
        manager: HookManager,
        *,
        previous: AppliedHooks | None = None,
        built: dict[str, list[Planned]] | None = None,
        decisions: DecisionStore | None = None,
    ) -> AppliedHooks:
        """Build every configured executor, then register them all on ``manager``.

        Also teaches the manager's redactor the header secrets, installs the chain
        budget and, when ``[observability]`` asks, tracing and the operation log.
        ``decisions`` is where ``pure`` entries record their decisions; without one a
        pure entry is called on every attempt (a warning says so).

        Args:
            manager: where to register.
            previous: the applied file this one replaces (a hot reload, issue 15): its
                registrations go and these come in one :meth:`HookManager.replace`, and its
                monitors are swapped for these. Closing its removed executors is the
                caller's (:mod:`.reload`), once the operations still using them end.
            built: what :meth:`build` made for this file; built here when ``None``.

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
        if built is None:
            built = {}
            self.build(manager, into=built, decisions=decisions)
        planned = [item for items in built.values() for item in items]
        applied = AppliedHooks(manager, entries=built, config=self)
        old = previous.registrations if previous is not None else []
        applied.registrations = manager.replace(old, planned)  # all or nothing
        try:
            if previous is not None:
                previous.unmonitor()  # before ours: tracing is installed once per manager
            self._monitors(manager, applied)
        except BaseException:
            applied.unmonitor()
            back = [(r.point, r.executor, r.priority, cast(Mode, r.mode)) for r in old]
            restored = manager.replace(applied.registrations, back)
            if previous is not None:
                previous.registrations = restored
                if previous.config is not None:
                    previous.config._monitors(manager, previous)
            raise
        if previous is not None:
            previous.registrations = []
        for line in describe_chains(manager):
            log.info("hook chain %s", line)
        return applied

    def build(
        self,
        manager: HookManager,
        *,
        into: dict[str, list[Planned]],
        reuse: Mapping[str, list[Planned]] | None = None,
        decisions: DecisionStore | None = None,
    ) -> None:
        """Construct every entry's executors (and the ``[policy]`` rules) into ``into``.

        Args:
            manager: whose redactor and audit log the executors use.
            into: filled with each entry's executors by label, in file order; what was
                built before a failure stays there, for the caller to close.
            reuse: executors to take as they are for these labels (a reload's unchanged
                entries keep their connections).
            decisions: where ``pure`` entries record their decisions.

        Raises:
            HookConfigError: an entry could not be built; every problem is named.
        """
        problems = self._build(manager, into, reuse or {}, decisions)
        if problems:
            raise HookConfigError(source=self.source, problems=problems)

    def _build(
        self,
        manager: HookManager,
        into: dict[str, list[Planned]],
        reuse: Mapping[str, list[Planned]],
        decisions: DecisionStore | None = None,
    ) -> list[str]:
        problems: list[str] = []
        for resolved in self.entries:
            entry = resolved.entry
            kept = reuse.get(resolved.label)
            if kept is not None:
                into[resolved.label] = kept
                continue
            if entry.pure and decisions is None:
                log.warning(
                    "%s is pure, but no decision store is configured: it is called "
                    "again on every attempt",
                    resolved.label,
                )
            planned = into.setdefault(resolved.label, [])
            try:
                for point, inner, closers in _executors(resolved, manager):
                    if entry.pure and decisions is not None:
                        inner = _pure(inner, resolved, point, decisions, manager)
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
            into[POLICY_LABEL] = [(p, rules, policy.priority, policy.mode) for p in POLICY_POINTS]
        return problems

    def _monitors(self, manager: HookManager, applied: AppliedHooks) -> None:
        if (limits := self.file.observers) is not None:
            from harness.hooks.observers import ObserverLimits

            previous = manager.observers.configure(ObserverLimits(**limits.model_dump()))

            def restore() -> None:
                manager.observers.configure(previous)

            applied.undo.append(restore)
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
        executors = (ex for items in applied.entries.values() for _, ex, _, _ in items)
        if any(holds_connections(ex) for ex in executors):
            from harness.hooks.monitors.inflight import InFlight

            applied.in_flight = InFlight()
            applied.undo.append(manager.add_monitor(applied.in_flight, around="operation"))


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
        return [
            (p, ex, _closer(ex) if i == 0 or ex is not made[0][1] else ())
            for i, (p, ex) in enumerate(made)
        ]
    if entry.kind == "jsonrpc":
        from harness.hooks.remote.jsonrpc import DEFAULT_TIMEOUT, JsonRpcExecutor

        assert entry.url is not None  # the schema requires it
        built: list[Built] = []
        for p in entry.points:
            remote = JsonRpcExecutor(
                entry.url,
                point=p,
                headers=resolved.headers,
                name=f"{resolved.label}#{p}",
                redactor=manager.redactor,
                timeout=entry.timeout or DEFAULT_TIMEOUT,
                idempotency_header=not entry.idempotent,
                signing_secrets=resolved.signing_secrets,
                ssl=resolved.tls,
            )
            built.append((p, remote, (remote.aclose,)))
        return built
    from harness.hooks.remote.mcp import DEFAULT_TIMEOUT as MCP_TIMEOUT
    from harness.hooks.remote.mcp import McpExecutor
    from harness.hooks.remote.mcp_connection import McpConnection

    server = resolved.command if resolved.command is not None else entry.url
    assert server is not None  # the schema requires one
    connection = McpConnection(
        server,
        cwd=resolved.cwd,  # one session for all its points
        ssl=resolved.tls,
    )
    return [
        (
            p,
            McpExecutor(
                connection,
                point=p,
                redactor=manager.redactor,
                name=f"{resolved.label}#{p}",
                timeout=entry.timeout or MCP_TIMEOUT,
            ),
            (connection.aclose,) if i == 0 else (),
        )
        for i, p in enumerate(entry.points)
    ]


def holds_connections(executor: object) -> bool:
    """Whether closing ``executor`` releases something (an HTTP pool, an MCP session, a
    plugin's resources): what a reload must not close under a running operation."""
    return bool(getattr(executor, "closers", ()))


def _pure(
    inner: Executor,
    resolved: ResolvedEntry,
    point: str,
    store: DecisionStore,
    manager: HookManager,
) -> Executor:
    """``inner`` recording its decisions; its identity is what the entry calls, as written."""
    config = resolved.entry.model_dump(
        mode="json", include={"kind", "target", "options", "url", "command", "headers"}
    )
    ttl = resolved.entry.pure_ttl_seconds or DEFAULT_TTL_SECONDS
    return PureExecutor(
        inner,
        point=point,
        name=resolved.label,
        config=config,
        store=store,
        ttl_seconds=ttl,
        redactor=manager.redactor,
        audit=manager.audit,
    )


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
                f"{reg.priority} {reg.name} ({executor_kind(reg.executor)}, {reg.mode}"
                f"{', pure' if _wraps(reg.executor, PureExecutor) else ''})"
                for reg in regs
            )
            lines.append(f"{point}: {items}")
    return lines


def _wraps(executor: object, cls: type) -> bool:
    """Whether ``executor`` is, or wraps (through ``inner``), an instance of ``cls``."""
    while executor is not None:
        if isinstance(executor, cls):
            return True
        executor = getattr(executor, "inner", None)
    return False
