"""What a configuration entry adds around an executor: a matcher, a timeout, a failure policy.

One wrapper per configured executor (not one per concern) keeps the call path to a
single extra frame. The executor itself (local function, JSON-RPC or MCP proxy)
knows nothing about configuration; ordering and modes are the manager's job.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, Literal, final

from harness.hooks.audit import AuditLog
from harness.hooks.contexts import HookContext
from harness.hooks.decisions import note_passed_over
from harness.hooks.errors import HookAbort, HookTimeoutError
from harness.hooks.executor import AbandonObserver, Applies, Executor

FailurePolicy = Literal["fail", "ignore"]

FIELD_ALIASES: Final[dict[str, str]] = {"tool": "call.name"}
"""Matcher keys that are short for a context path (``tool = "^shell$"`` reads ``call.name``)."""

_MISSING: Final = object()


@final
class FieldMatch:
    """One matcher: the value at a dotted context path must fully match a regex.

    Args:
        key: as written in the configuration (an alias or a dotted path).
        pattern: the compiled regex; ``fullmatch`` so ``command = "model"`` is exact.
    """

    __slots__ = ("key", "path", "pattern")

    def __init__(self, key: str, pattern: re.Pattern[str]) -> None:
        self.key = key
        self.path = tuple(FIELD_ALIASES.get(key, key).split("."))
        self.pattern = pattern

    def matches(self, ctx: HookContext) -> bool:
        """Whether the context's value at the path (as text) fully matches."""
        value: object = ctx
        for part in self.path:
            value = getattr(value, part, _MISSING)
            if value is _MISSING or value is None:
                return False
        return self.pattern.fullmatch(str(value)) is not None


@final
class ConfiguredExecutor:
    """Runs ``inner`` when every matcher agrees, within ``timeout``, under a failure policy.

    Args:
        inner: the executor built from the entry.
        point: where it is registered.
        name: the entry's name, used in errors and audit records.
        kind: ``local``, ``jsonrpc`` or ``mcp``, for listings.
        matchers: all must match, or the executor passes through without running (its
            ``applies`` tells the watchers so, and they do not count the call).
        timeout: seconds for a local executor (remote ones enforce their own); ``None``
            for no limit here.
        on_failure: ``fail`` re-raises; ``ignore`` records the failure in the audit log
            and passes through. A ``HookAbort`` is a verdict, not a failure: it always
            propagates.
        audit: where ignored failures are recorded.
        closers: release what the executor holds (HTTP pools, MCP sessions) at :meth:`aclose`.
    """

    __slots__ = (
        "applies",
        "audit",
        "closers",
        "inner",
        "kind",
        "matchers",
        "name",
        "on_failure",
        "point",
        "timeout",
    )

    def __init__(
        self,
        inner: Executor,
        *,
        point: str,
        name: str,
        kind: str = "local",
        matchers: Sequence[FieldMatch],
        timeout: float | None,
        on_failure: FailurePolicy,
        audit: AuditLog,
        closers: Sequence[Callable[[], Awaitable[None]]] = (),
    ) -> None:
        self.inner = inner
        self.point = point
        self.name = name
        self.kind = kind
        self.matchers = tuple(matchers)
        # Watchers ask it before they watch a call: a skipped call is no decision (issue 28).
        self.applies: Applies | None = self._matches if self.matchers else None
        self.timeout = timeout
        self.on_failure = on_failure
        self.audit = audit
        self.closers = tuple(closers)

    async def __call__(self, ctx: HookContext, /) -> HookContext | None:
        """Run the entry's executor on ``ctx`` as configured.

        Raises:
            HookAbort: the executor vetoed (whatever the failure policy).
            HookTimeoutError: it ran past ``timeout`` and the policy is ``fail``.
            Exception: whatever it raised, when the policy is ``fail``.
        """
        for matcher in self.matchers:
            if not matcher.matches(ctx):
                return None
        try:
            if self.timeout is None:
                return await self.inner(ctx)
            try:
                async with asyncio.timeout(self.timeout):
                    return await self.inner(ctx)
            except TimeoutError:
                raise HookTimeoutError(
                    point=self.point, scope="executor", seconds=self.timeout, executor=self.name
                ) from None
        except HookAbort:
            raise
        except Exception as error:
            if self.on_failure == "fail":
                raise
            self.audit.record(
                "ignored_failure",
                point=self.point,
                executor=self.name,
                reason=f"{type(error).__name__}: {error}",
                ctx=ctx,
            )
            note_passed_over(error)  # a decision trace calls this call failed-open, not a pass
            return None

    def _matches(self, ctx: HookContext) -> bool:
        return all(matcher.matches(ctx) for matcher in self.matchers)

    async def aclose(self) -> None:
        """Release the executor's connections (the manager's ``aclose`` calls this at shutdown)."""
        for close in self.closers:
            await close()

    def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        """Forward to the executor when it observes abandons (a span, a lock it opened)."""
        if isinstance(self.inner, AbandonObserver):
            self.inner.abandon(point, ctx, error)
