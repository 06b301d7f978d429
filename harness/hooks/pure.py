"""Replay-safe decisions of pure executors (issue 15, point 7): decided once per operation.

An executor declared pure (``pure = true`` in the hooks file) decides from the context
alone, so a Temporal retry of the same operation, on this worker or another, reuses the
decision it recorded instead of calling it again. :class:`PureExecutor` wraps only the
entries that ask for it (other executors pay nothing); where decisions live is a
:class:`DecisionStore` (the worker's is :mod:`harness.storage.decisions`, in the database
every host shares). Only verdicts are recorded: a transport error, a timeout or an
exception is not a decision, and the retry calls the executor again.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from typing import Any, Final, Literal, Protocol, final

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.hooks.audit import AuditLog
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import AbandonObserver, Executor
from harness.redaction import Redactor

log = logging.getLogger(__name__)

DEFAULT_TTL_SECONDS: Final = 3600.0
"""How long a decision is reused when the entry sets no ``pure_ttl_seconds``."""

PER_ATTEMPT_FIELDS: Final = frozenset({"attempt", "lost_workers"})
"""The identity fields (:data:`harness.hooks.chain.IDENTITY_FIELDS`) that differ between
attempts of one operation, left out of the key; ``task``, ``correlation_id`` and
``idempotency_key`` stay in it, so two operations never share a decision."""

_EXCLUDE: Final[Mapping[str, bool]] = dict.fromkeys(PER_ATTEMPT_FIELDS, True)

KEY_VERSION: Final = "pure-v1"
"""Part of every key: a change to how keys are made is a new version, never a stale hit."""


@final
class RecordedDecision(BaseModel):
    """What a pure executor decided: pass, a replacement context (as JSON), or an abort."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["pass", "rewrite", "abort"]
    context: dict[str, Any] | None = None
    """``rewrite``: the replacement, redacted, without :data:`PER_ATTEMPT_FIELDS`."""
    reason: str = ""
    refusal: bool = False
    ask: bool = False
    timeout_seconds: float = 0.0


class DecisionStore(Protocol):
    """Where recorded decisions live, shared by every worker that may run a retry.

    An unavailable store is a miss (``get`` returns ``None``, ``put`` records nothing):
    a pure executor can always be called again, so the store never fails an operation.
    """

    async def get(self, key: str) -> RecordedDecision | None: ...

    async def put(self, key: str, decision: RecordedDecision, ttl_seconds: float) -> None: ...


def is_pure(executor: object) -> bool:
    """Whether ``executor`` is, or wraps (mode and configuration wrappers, through ``inner``), a
    :class:`PureExecutor`: what the start log and ``python -m harness.hooks list`` mark."""
    while executor is not None:
        if isinstance(executor, PureExecutor):
            return True
        executor = getattr(executor, "inner", None)
    return False


def executor_identity(name: str, point: str, config: Mapping[str, object]) -> str:
    """Who decides: entry name, point and a fingerprint of what it calls (URL, command, target).

    A changed executor has another identity, so it is never fed its predecessor's decisions.
    """
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), default=str)
    fingerprint = hashlib.sha256(text.encode()).hexdigest()[:16]
    return f"{name}@{point}#{fingerprint}"


def decision_key(identity: str, ctx: HookContext) -> str:
    """SHA-256 of the executor's identity and the (redacted) context as canonical JSON.

    The context is the one the manager hands executors, redacted already; the fields of
    :data:`PER_ATTEMPT_FIELDS` are left out, so every attempt of one operation has one key.
    """
    body = ctx.model_dump(mode="json", exclude=_EXCLUDE)
    text = json.dumps(
        [KEY_VERSION, identity, type(ctx).operation, body],
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode()).hexdigest()


@final
class PureExecutor:
    """Calls ``inner`` once per operation and replays its decision on the operation's retries.

    Args:
        inner: the pure executor.
        point: where it is registered.
        name: the entry's name.
        config: what it calls (URL, command, target, options), for :func:`executor_identity`.
        store: where decisions are recorded.
        ttl_seconds: how long a decision is reused.
        redactor: the manager's; a recorded replacement or reason is redacted before storing.
        audit: where each reuse is noted (``reused_decision``), so it can be seen.
    """

    __slots__ = (
        "audit",
        "identity",
        "inner",
        "name",
        "point",
        "redactor",
        "reused",
        "store",
        "ttl",
    )

    def __init__(
        self,
        inner: Executor,
        *,
        point: str,
        name: str,
        config: Mapping[str, object],
        store: DecisionStore,
        ttl_seconds: float,
        redactor: Redactor,
        audit: AuditLog,
    ) -> None:
        self.inner = inner
        self.point = point
        self.name = name
        self.identity = executor_identity(name, point, config)
        self.store = store
        self.ttl = ttl_seconds
        self.redactor = redactor
        self.audit = audit
        self.reused = 0
        """Decisions replayed by this process (the audit log names each)."""

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Replay the recorded decision for ``ctx``'s operation, or decide and record it.

        Raises:
            HookAbort: the executor aborted, now or on an earlier attempt.
            Exception: whatever the executor raised (nothing is recorded then).
        """
        key = decision_key(self.identity, ctx)
        recorded = await self.store.get(key)
        if recorded is not None:
            if recorded.kind == "pass":
                self._note(recorded, ctx, key)
                return None
            if recorded.kind == "abort":
                self._note(recorded, ctx, key)
                raise HookAbort(
                    recorded.reason,
                    refusal=recorded.refusal,
                    ask=recorded.ask,
                    timeout_seconds=recorded.timeout_seconds,
                )
            replacement = self._restore(recorded, ctx)
            if replacement is not None:
                self._note(recorded, ctx, key)
                return replacement
        try:
            out = await self.inner(ctx)
        except HookAbort as abort:
            await self.store.put(
                key,
                RecordedDecision(
                    kind="abort",
                    reason=self.redactor.redact_text(abort.reason),
                    refusal=abort.refusal,
                    ask=abort.ask,
                    timeout_seconds=abort.timeout_seconds,
                ),
                self.ttl,
            )
            raise
        if out is None:
            await self.store.put(key, _PASS, self.ttl)
        elif type(out) is type(ctx):  # anything else is the chain's error, not a decision
            body = self.redactor.redact(out).model_dump(mode="json", exclude=_EXCLUDE)
            await self.store.put(key, RecordedDecision(kind="rewrite", context=body), self.ttl)
        return out

    def _restore(self, recorded: RecordedDecision, ctx: HookContext) -> HookContext | None:
        """The recorded replacement re-validated for this attempt; ``None``: it no longer fits."""
        data = {
            **(recorded.context or {}),
            "attempt": ctx.attempt,
            "lost_workers": ctx.lost_workers,
        }
        try:
            return type(ctx).model_validate(data)
        except ValidationError as error:
            log.warning(
                "the recorded rewrite of %s at %s no longer fits %s (%d problems): "
                "calling it again",
                self.name,
                self.point,
                type(ctx).__name__,
                error.error_count(),
            )
            return None

    def _note(self, recorded: RecordedDecision, ctx: HookContext, key: str) -> None:
        self.reused += 1
        log.debug(
            "%s at %s: reusing its %s decision for attempt %d (key %s)",
            self.name,
            self.point,
            recorded.kind,
            ctx.attempt,
            key[:12],
        )
        self.audit.record(
            "reused_decision",
            point=self.point,
            executor=self.name,
            reason=f"{recorded.kind} recorded by an earlier attempt (key {key[:12]})",
            ctx=ctx,
        )

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """Forward to the executor when it observes abandons."""
        if isinstance(self.inner, AbandonObserver):
            self.inner.abandon(point, ctx, error)


_PASS: Final = RecordedDecision(kind="pass")
