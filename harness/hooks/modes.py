"""Registration modes: how an executor's verdict is applied (issue 6, "validate after mutate").

``normal`` executors pass, replace or abort. A ``validator`` runs after every normal
executor of its point (the manager sorts it there at registration) and may only
pass or abort, so no rewrite can follow its approval. An ``audit`` executor runs on
live traffic but nothing it does is applied: a veto or a replacement is written to
the audit log instead. An ``observer`` sees the context at its place but the chain does
not wait for it, and nothing it does is applied (:mod:`harness.hooks.observers`). The
wrappers here enforce that; ordering is the manager's job, and running a point's validators
at once is :mod:`harness.hooks.validators`'.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Final, Literal, final

from harness.hooks.audit import AuditKind, AuditLog
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort, HookValidationError
from harness.hooks.executor import AbandonObserver, Applies, Executor, applies_of
from harness.hooks.observers import ObserverExecutor, ObserverQueue

Mode = Literal["normal", "validator", "audit", "observer"]
MODES: Final[tuple[Mode, ...]] = ("normal", "validator", "audit", "observer")

MODE_RANK: Final[dict[str, int]] = {"normal": 0, "audit": 0, "observer": 0, "validator": 1}
"""First element of the sort key: validators sort after everything else on a point."""


def check_mode(point: str, mode: str) -> None:
    """Refuse a mode that is unknown, or one that has no meaning at ``point``.

    Raises:
        ValueError: the mode is not one of :data:`MODES`, or a validator or an observer is
            put at an ``in`` point (the in chain stops at the first result, so neither
            could see the body's result, and an observer could not set it).
    """
    if mode not in MODE_RANK:
        raise ValueError(f"unknown mode {mode!r} for {point}: expected one of {MODES}")
    if point.endswith(".in") and mode in ("validator", "observer"):
        what = "validate" if mode == "validator" else "observe"
        raise ValueError(
            f"a{'n' if mode == 'observer' else ''} {mode} cannot run at {point}: the in chain "
            f"stops at the first result; {what} the output at the post point instead"
        )


def wrap(
    executor: Executor,
    mode: str,
    *,
    point: str,
    name: str,
    audit: AuditLog,
    observers: ObserverQueue,
) -> Executor:
    """``executor`` inside the wrapper that applies its mode (a normal one as it is)."""
    if mode == "validator":
        return ValidatorExecutor(executor, point=point, name=name)
    if mode == "audit":
        return AuditExecutor(executor, point=point, name=name, audit=audit)
    if mode == "observer":
        return ObserverExecutor(executor, point=point, name=name, queue=observers)
    return executor


class _Wrapped:
    """Shared by the wrappers: forwards ``abandon`` so a wrapped observer still hears it, and
    the wrapped executor's ``applies`` (its match) so a watcher can skip what it skips."""

    __slots__ = ("applies", "inner", "name", "point")

    def __init__(self, inner: Executor, *, point: str, name: str) -> None:
        self.inner = inner
        self.point = point
        self.name = name
        self.applies: Applies | None = applies_of(inner)

    async def aclose(self) -> None:
        """Close the wrapped executor when it holds connections."""
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """Pass the abandon on when the wrapped executor is an :class:`AbandonObserver`."""
        if isinstance(self.inner, AbandonObserver):
            self.inner.abandon(point, ctx, error)


@final
class ValidatorExecutor(_Wrapped):
    """Runs a validator: ``None`` passes, ``HookAbort`` vetoes, a replacement is an error."""

    __slots__ = ()

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Run the validator on the final input (or output) of the point.

        Raises:
            HookAbort: the validator vetoed.
            HookValidationError: the validator returned a replacement, which a validator
                may not do (it would be a rewrite nobody validates).
        """
        out = await self.inner(ctx)
        if out is not None:
            raise HookValidationError(
                point=self.point,
                executor=self.name,
                detail="a validator may only pass (return None) or abort; it returned a "
                "replacement. Register it as a normal executor to rewrite.",
            )
        return None


_SHADOW: ContextVar[tuple[HookContext, HookContext] | None] = ContextVar(
    "harness_audit_shadow", default=None
)
"""The live context of the running chain and what it would be had the audited rewrites applied.

Set by one :class:`AuditExecutor`, read by the next in the same chain (executors are
awaited one after another in the operation's task, so they share this variable); a
live context that is no longer the one recorded starts a fresh shadow."""


def _shadow_of(ctx: HookContext) -> HookContext:
    held = _SHADOW.get()
    return held[1] if held is not None and held[0] is ctx else ctx


@final
class AuditExecutor(_Wrapped):
    """Runs an executor in dry-run mode: its veto, rewrite or failure is recorded, never applied.

    It sees the context as the audited executors before it would have left it (their
    rewrites applied to a shadow copy), so the audit lists every decision a file would
    make, e.g. a policy's veto of a call another executor would have rewritten (issue 26).
    """

    __slots__ = ("audit",)

    def __init__(self, inner: Executor, *, point: str, name: str, audit: AuditLog) -> None:
        super().__init__(inner, point=point, name=name)
        self.audit = audit
        matches = self.applies
        if matches is not None:  # it runs on the shadow, so its match reads the shadow
            self.applies = lambda ctx: matches(_shadow_of(ctx))

    async def __call__(self, ctx: HookContext, /) -> None:
        """Run the executor on the shadow, record what it would have done, and pass through."""
        shadow = _shadow_of(ctx)
        try:
            out = await self.inner(shadow)
        except HookAbort as abort:
            kind = "ask" if abort.ask else "refuse" if abort.refusal else "abort"
            self._note("audit_veto", f"would {kind}: {abort.reason}", ctx)
            return None
        except Exception as error:
            # A policy on trial must not break live traffic; its failure is recorded instead.
            self._note("audit_failure", f"{type(error).__name__}: {error}", ctx)
            return None
        if out is not None:
            changed = sorted(
                name for name, value in out.__dict__.items() if shadow.__dict__.get(name) != value
            )
            self._note(
                "audit_rewrite",
                f"would rewrite {', '.join(changed) or 'nothing (same values)'}",
                ctx,
            )
            if type(out) is type(shadow):
                _SHADOW.set((ctx, out))
        return None

    def _note(self, kind: AuditKind, reason: str, ctx: HookContext) -> None:
        self.audit.record(kind, point=self.point, executor=self.name, reason=reason, ctx=ctx)
