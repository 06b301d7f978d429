"""The audit log: every abort, refusal, ask, approval, failure and dry-run verdict.

It is what makes "never a silent pass" checkable (issue 6): whatever an executor
vetoed, failed at, or would have changed in audit mode is written here with the
point, the executor, the reason and the correlation and task ids. It keeps the last
records in memory and hands each one to its sinks (the worker adds the database's audit
table, :mod:`harness.storage.audit`); it does not decide anything.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal, Protocol, final, runtime_checkable

from harness.hooks.contexts import HookContext
from harness.redaction import Redactor

log = logging.getLogger(__name__)

AuditKind = Literal[
    "abort",
    "refusal",
    "transport_error",
    "ignored_failure",
    "audit_veto",
    "audit_rewrite",
    "audit_failure",
    "capped",
    "ask",
    "approval",
    "reused_decision",
    "reload",
    "observer_ignored",
]
"""What happened: ``audit_*`` kinds come from executors in audit (dry-run) mode; ``capped`` is
a retry decision the worker bounded (a delay or an attempt beyond its configured maxima);
``ask`` is a tool call held for a person's approval, ``approval`` what was decided of it
(approved or denied by whom, or timed out with nobody deciding: issue 14);
``reused_decision`` a pure executor's decision replayed on a retry, not asked again (issue 15);
``reload`` a hot reload of the hooks file, applied or refused, by which worker (issue 15);
``observer_ignored`` a veto or a failure of an observer, which never reaches the operation
(issue 15)."""

AUDIT_KINDS: Final[tuple[str, ...]] = AuditKind.__args__  # type: ignore[attr-defined]  # Literal keeps its values here


@final
@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One audited event; ``reason`` is redacted before the record exists."""

    at: float
    kind: str
    point: str
    executor: str
    reason: str
    correlation_id: str = ""
    task_id: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready mapping."""
        return asdict(self)


class AuditSink(Protocol):
    """Where records go besides memory; synchronous, since aborts surface on sync paths too,
    so a sink that does I/O queues the record and writes it in the background."""

    def write(self, record: AuditRecord) -> None: ...


@runtime_checkable
class AuditHistory(Protocol):
    """A sink that keeps history and can read it back (the database's audit table)."""

    async def last(self, count: int = 20, *, task_id: str | None = None) -> list[AuditRecord]: ...


@final
class AuditLog:
    """Recent records in memory, each also handed to every sink.

    Args:
        redactor: scrubs reasons (they may quote a tool argument or a header).
        history: how many records :meth:`last` can return.
        clock: wall-clock seconds since the epoch; a provider so tests can fix it.
    """

    def __init__(
        self,
        redactor: Redactor,
        *,
        history: int = 500,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.redactor = redactor
        self.sinks: list[AuditSink] = []
        self._recent: deque[AuditRecord] = deque(maxlen=history)
        self._clock = clock

    def record(
        self, kind: AuditKind, *, point: str, executor: str, reason: str, ctx: HookContext | None
    ) -> AuditRecord:
        """Write one record; a sink that fails is logged and skipped, never raised into the chain.

        Returns:
            The record as written (reason redacted).
        """
        entry = AuditRecord(
            at=self._clock(),
            kind=kind,
            point=point,
            executor=executor,
            reason=self.redactor.redact_text(reason),
            correlation_id=ctx.correlation_id if ctx is not None else "",
            task_id=ctx.task.task_id if ctx is not None and ctx.task is not None else "",
        )
        self._recent.append(entry)
        for sink in self.sinks:
            try:
                sink.write(entry)
            except Exception:
                # The operation's own outcome must not change because the audit store is down.
                log.exception("audit sink %r failed; record kept in memory only", sink)
        return entry

    async def recent(self, count: int = 20, *, task_id: str | None = None) -> list[AuditRecord]:
        """The last records, from the first sink that keeps history (the store), else memory.

        A worker restarted since, or another worker on the same database, still shows
        its records there.
        """
        for sink in self.sinks:
            if isinstance(sink, AuditHistory):
                return await sink.last(count, task_id=task_id)
        records = (
            self._recent if task_id is None else [r for r in self._recent if r.task_id == task_id]
        )
        return list(records)[-count:] if count > 0 else []

    async def aclose(self) -> None:
        """Close every sink that holds resources (has ``aclose``): queued records are written."""
        for sink in self.sinks:
            close = getattr(sink, "aclose", None)
            if close is None:
                continue
            try:
                await close()
            except Exception:
                log.exception("closing audit sink %r failed (suppressed)", sink)

    def __len__(self) -> int:
        return len(self._recent)

    def last(self, count: int = 20) -> list[AuditRecord]:
        """The ``count`` most recent records seen by this process, oldest first."""
        if count <= 0:
            return []
        return list(self._recent)[-count:]
