"""A resolved executor configuration and how it is applied: build everything, then register.

:meth:`HooksConfig.apply` constructs every executor first (a factory that raises, a
remote executor that cannot be built), and only then registers them; a failure while
registering unregisters what was added, so a manager never runs a partial chain.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast, final

from harness.domain import RetryDefaults
from harness.hooks.catalogue import POINTS
from harness.hooks.config.build import ResolvedEntry, executors_of, holds_connections, pure
from harness.hooks.config.schema import HooksFile
from harness.hooks.config.wrappers import ConfiguredExecutor, FieldMatch
from harness.hooks.errors import HookConfigError
from harness.hooks.executor import Executor, Registration, executor_kind
from harness.hooks.manager import HookManager
from harness.hooks.modes import Mode
from harness.hooks.monitors.approvals import ApprovalsConfig
from harness.hooks.pure import DecisionStore, is_pure

if TYPE_CHECKING:
    from harness.hooks.monitors.inflight import InFlight

log = logging.getLogger(__name__)


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

    @property
    def live_approvals(self) -> ApprovalsConfig | None:
        """The ``[approvals]`` to apply: none in audit mode, where the file's only runs on
        trial (:func:`~harness.hooks.monitors.approvals.register_approvals`, issue 26)."""
        return None if self.audit_only else self.file.approvals

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
                for point, inner, closers in executors_of(resolved, manager):
                    if entry.pure and decisions is not None:
                        inner = pure(inner, resolved, point, decisions, manager)
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
            from harness.hooks.monitors.policy import Policy, policy_points

            rules = Policy(policy.rules, default=policy.default)
            into[POLICY_LABEL] = [(p, rules, policy.priority, policy.mode) for p in policy_points()]
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


def describe_chains(manager: HookManager) -> list[str]:
    """One line per non-empty point: ``point: priority name (kind, mode), ...`` in run order."""
    lines = []
    for point in POINTS:
        regs = manager.registrations(point)
        if regs:
            items = ", ".join(
                f"{reg.priority} {reg.name} ({executor_kind(reg.executor)}, {reg.mode}"
                f"{', pure' if is_pure(reg.executor) else ''})"
                for reg in regs
            )
            lines.append(f"{point}: {items}")
    return lines
