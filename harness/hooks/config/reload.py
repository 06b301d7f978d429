"""Hot reload of the hooks file (issue 15): re-validated all or nothing, swapped between operations.

:meth:`HooksReload.reload` reads the file again and builds every new executor before anything
changes; a good file replaces the running one's registrations and monitors in one step
(:meth:`HookManager.replace`), so an operation in flight finishes on the chains it started
with. Entries equal in both files keep their executors and connections; the executors of
removed or changed entries are closed once the operations started before the swap have
ended (:class:`~harness.hooks.monitors.inflight.InFlight`), or after a bounded grace. A bad
file changes nothing. Either way one ``reload`` audit record says what happened. What was
baked into the default bodies at start (``[retry]``, ``[approvals] default``) needs a restart,
and a reload says so. Who asks for a reload is the worker's business (SIGHUP,
:mod:`harness.temporal.worker`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast, final

from harness.domain import DEFAULT_APPROVALS
from harness.hooks.config.build import holds_connections
from harness.hooks.config.loader import load_hooks_config
from harness.hooks.config.plan import POLICY_LABEL, AppliedHooks, HooksConfig, Planned
from harness.hooks.errors import HookConfigError
from harness.hooks.executor import Executor, Registration
from harness.hooks.manager import HookManager
from harness.hooks.modes import Mode
from harness.hooks.monitors.approvals import ApprovalPolicy, ApprovalsConfig
from harness.hooks.monitors.inflight import InFlight
from harness.hooks.pure import DecisionStore

log = logging.getLogger(__name__)

NO_FILE = "no hooks file is configured (HARNESS_HOOKS_CONFIG); there is nothing to reload"


@final
@dataclass(frozen=True)
class ReloadOutcome:
    """What one reload did: applied or refused, and which entries and sections it changed."""

    applied: bool
    trigger: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()
    restart: tuple[str, ...] = ()
    """Sections that changed but take effect only when the worker restarts."""
    problems: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for the log and the audit record."""
        if not self.applied:
            return f"refused (by {self.trigger}), the running chains are kept: " + "; ".join(
                self.problems
            )
        parts = [
            f"{what} {', '.join(names)}"
            for what, names in (
                ("added", self.added),
                ("removed", self.removed),
                ("changed", self.changed),
                ("kept", self.kept),
            )
            if names
        ]
        text = f"applied (by {self.trigger}): " + ("; ".join(parts) or "the file is empty")
        if not (self.added or self.removed or self.changed):
            text += "; nothing changed"
        if self.restart:
            text += (
                f"; {', '.join(self.restart)} changed but needs a restart: the running "
                "worker keeps the values it started with"
            )
        return text


@final
class HooksReload:
    """Reloads one worker's hooks file into its manager; one reload at a time.

    Args:
        manager: the worker's manager.
        path: the hooks file (``settings.hooks_config``); ``None`` refuses every reload.
        config: the file as the worker applied it at start (``None`` without one).
        applied: what applying it registered.
        approvals: the approval policy's registration (:func:`register_approvals`): its
            rules and timeout reload with the file.
        grace_seconds: the longest a removed executor stays open for operations that
            started before the swap (the activity timeout is a natural bound).
        worker: who reloads, for the audit (``host pid``).
        decisions: where ``pure`` entries record their decisions (as at start).
    """

    def __init__(
        self,
        manager: HookManager,
        path: Path | None,
        config: HooksConfig | None,
        applied: AppliedHooks | None,
        *,
        approvals: Registration | None = None,
        grace_seconds: float,
        worker: str,
        decisions: DecisionStore | None = None,
    ) -> None:
        self.manager = manager
        self.path = path
        self.grace_seconds = grace_seconds
        self.worker = worker
        self.decisions = decisions
        self._config = config
        self._applied = applied or AppliedHooks(manager)
        self._approvals = approvals
        # What the default bodies were given at start: a change needs a restart.
        self._baked = (config.file.retry if config else None, _approval_default(config))
        self._redaction = config.file.redaction if config else None
        # Installed by build_hooks with the worker's database (issue 15, point 4): at start only.
        self._stats = bool(config and config.file.observability.executor_stats)
        self._lock = asyncio.Lock()
        self._retiring: set[asyncio.Task[None]] = set()
        self._replaced: list[InFlight] = []
        """The in-flight counts of replaced files whose operations have not all ended."""

    async def reload(self, *, trigger: str) -> ReloadOutcome:
        """Read, validate and build the file again; apply it whole, or change nothing.

        Never raises: a refusal is the outcome, logged with every problem and audited.

        Args:
            trigger: what asked for it (``SIGHUP``), for the log and the audit.

        Returns:
            What happened.
        """
        async with self._lock:
            try:
                outcome = await self._reload(trigger)
            except Exception as error:  # a bug or a plugin's surprise: refuse, keep running
                log.exception("hooks reload failed")
                outcome = ReloadOutcome(
                    False, trigger, problems=(f"{type(error).__name__}: {error}",)
                )
        source = str(self.path) if self.path else "-"
        self.manager.audit.record(
            "reload", point=source, executor=self.worker, reason=outcome.describe(), ctx=None
        )
        if outcome.applied:
            log.info("hooks file %s reloaded: %s", source, outcome.describe())
        else:
            listing = "\n".join(f"  - {p}" for p in outcome.problems)
            log.error(
                "hooks file %s not reloaded (by %s), the running chains are kept:\n%s",
                source,
                trigger,
                listing,
            )
        if outcome.restart:
            log.warning(
                "hooks file %s: %s changed; restart the worker to apply it",
                source,
                ", ".join(outcome.restart),
            )
        return outcome

    async def _reload(self, trigger: str) -> ReloadOutcome:
        if self.path is None:
            return ReloadOutcome(False, trigger, problems=(NO_FILE,))
        try:
            config = load_hooks_config(
                self.path, audit_only=bool(self._config and self._config.audit_only)
            )
        except HookConfigError as error:
            return ReloadOutcome(False, trigger, problems=tuple(error.problems))
        before, previous = self._config, self._applied
        old = _groups(before)
        new = _groups(config)
        kept = tuple(label for label in new if old.get(label) == new[label])
        reuse = {label: previous.entries[label] for label in kept if label in previous.entries}
        built: dict[str, list[Planned]] = {}
        try:
            config.build(self.manager, into=built, reuse=reuse, decisions=self.decisions)
            approvals = self._approval_policy(config)
            applied = config.apply(self.manager, previous=previous, built=built)
        except Exception as error:  # nothing changed: close what was built for nothing
            await _close(_fresh(built, reuse))
            problems = (
                error.problems
                if isinstance(error, HookConfigError)
                else [f"cannot register: {type(error).__name__}: {error}"]
            )
            return ReloadOutcome(False, trigger, problems=tuple(problems))
        if approvals is not None and self._approvals is not None:  # no await since the swap
            [self._approvals] = self.manager.replace([self._approvals], [approvals])
        self._config, self._applied = config, applied
        gone = [label for label in old if label not in kept]
        self._retire(previous, gone)
        sections = _sections(before, config)
        return ReloadOutcome(
            True,
            trigger,
            added=tuple(label for label in new if label not in old),
            removed=tuple(label for label in old if label not in new),
            changed=(
                *(label for label in new if label in old and label not in kept),
                *sections,
                *(("[approvals]",) if approvals is not None else ()),
            ),
            kept=kept,
            restart=self._restart(config),
        )

    async def aclose(self) -> None:
        """Close at once what still waits to be retired (the worker is stopping)."""
        for task in list(self._retiring):
            task.cancel()
        await asyncio.gather(*self._retiring, return_exceptions=True)

    def _approval_policy(self, config: HooksConfig) -> Planned | None:
        """The approval policy for ``config``'s rules and timeout, or ``None`` when unchanged."""
        if self._approvals is None:
            return None
        running = getattr(self._approvals.executor, "inner", self._approvals.executor)
        if not isinstance(running, ApprovalPolicy):
            return None
        wanted = config.live_approvals or ApprovalsConfig()
        # The default went to the tasks' loop defaults at start: it stays what they were given.
        wanted = wanted.model_copy(update={"default": running.config.default})
        if wanted == running.config:
            return None
        policy = ApprovalPolicy(wanted, needs_approval=running.needs_approval, safe=running.safe)
        reg = self._approvals
        return (reg.point, policy, reg.priority, cast(Mode, reg.mode))

    def _restart(self, config: HooksConfig) -> tuple[str, ...]:
        retry, default = self._baked
        return (
            *(("[retry]",) if config.file.retry != retry else ()),
            *(("[approvals] default",) if _approval_default(config) != default else ()),
            *(("[redaction]",) if config.file.redaction != self._redaction else ()),
            *(
                ("[observability] executor_stats",)
                if config.file.observability.executor_stats != self._stats
                else ()
            ),
        )

    def _retire(self, previous: AppliedHooks, labels: list[str]) -> None:
        # An executor kept through earlier reloads may still serve operations that started
        # on any of those files: every replaced file's count is waited for, not only the last.
        if previous.in_flight is not None:
            self._replaced.append(previous.in_flight)
        self._replaced = [counted for counted in self._replaced if counted.count]
        executors = [ex for label in labels for _, ex, _, _ in previous.entries.get(label, ())]
        executors = [ex for ex in executors if holds_connections(ex)]
        if not executors:
            return
        task = asyncio.create_task(self._close_after(list(self._replaced), executors, labels))
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def _close_after(
        self, waits: list[InFlight], executors: list[Executor], labels: list[str]
    ) -> None:
        try:
            drained = await asyncio.gather(*(w.drained(self.grace_seconds) for w in waits))
            # Then what those operations queued for observers (issue 15, point 6).
            observers = self.manager.observers
            drained.append(await observers.settled(observers.mark(), self.grace_seconds))
            if not all(drained):
                log.warning(
                    "closing %s after %g s with %d operations (and %d observations) "
                    "still using them",
                    ", ".join(labels),
                    self.grace_seconds,
                    sum(w.count for w in waits),
                    observers.running + observers.pending,
                )
        finally:  # also when the worker stops first: nothing stays open
            await _close(executors)
            log.info("closed the executors the reload removed or changed: %s", ", ".join(labels))


def _groups(config: HooksConfig | None) -> dict[str, tuple[object, ...]]:
    """Each label's entries as comparable values (an unnamed entry's label is its place)."""
    groups: dict[str, list[object]] = {}
    for resolved in config.entries if config else ():
        groups.setdefault(resolved.label, []).append(dataclasses.replace(resolved, index=0))
    if config is not None and config.file.policy is not None and config.file.policy.rules:
        groups[POLICY_LABEL] = [config.file.policy]
    return {label: tuple(values) for label, values in groups.items()}


def _sections(before: HooksConfig | None, after: HooksConfig) -> tuple[str, ...]:
    """The monitors' sections that changed; they are swapped with the chains."""
    return tuple(
        f"[{name}]"
        for name in ("chain", "observability", "observers")
        if before is None or getattr(before.file, name) != getattr(after.file, name)
    )


def _approval_default(config: HooksConfig | None) -> str:
    approvals = config.live_approvals if config else None
    return approvals.default if approvals else DEFAULT_APPROVALS


def _fresh(built: dict[str, list[Planned]], reuse: dict[str, list[Planned]]) -> list[Executor]:
    return [ex for label, items in built.items() if label not in reuse for _, ex, _, _ in items]


async def _close(executors: Iterable[Executor]) -> None:
    seen: set[int] = set()
    for executor in executors:
        close = getattr(executor, "aclose", None)
        if close is None or id(executor) in seen or not holds_connections(executor):
            continue
        seen.add(id(executor))
        try:
            await close()
        except Exception:
            log.exception("closing executor %r failed (suppressed)", executor)
