"""The harness's activities: one per catalogue activity name, generated, each hook-wrapped.

Every row of :mod:`harness.hooks.catalogue` that names an activity gets one, built by
:func:`hooked_activity`: its body is the operation's pre, in and post chains, run by
:func:`harness.temporal.activity.wrapper.run_hooked` (the default bodies are registered on the
manager). Activities compute, the workflow acts on what they return. ``activity.failed``
and ``activity.retried`` are finished by the worker's retry limits
(:mod:`harness.temporal.activity.dispatch`), in their own activities and in the ``dispatch_hooks``
one they shared before issue 25 (kept for older histories and workers).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Awaitable, Callable, Sequence
from typing import Final, final

from temporalio import activity
from temporalio.exceptions import ApplicationError

from harness.domain.outcome import Stopped
from harness.hooks import (
    DISPATCH_HOOKS,
    HookContext,
    HookManager,
    changes_name,
    context_type,
    entries,
    entry_of,
    refs_name,
)
from harness.providers import Clock
from harness.temporal.activity.claims import AttemptClaims
from harness.temporal.activity.dispatch import RETRY_OPERATIONS, RetryLimits, bounded
from harness.temporal.activity.referenced import MessageVault, opened, referred
from harness.temporal.activity.wrapper import ActivityHost, run_hooked
from harness.temporal.errors import MessagesMissing
from harness.temporal.models import Changed, changes
from harness.temporal.refs import Referenced, message_fields

HOOKED_ATTRIBUTE: Final = "__hooked_operation__"
"""Set on every hooked activity: its operation, or ``"*"`` when the input's type decides it."""

Activity = Callable[[HookContext], Awaitable[HookContext | Changed | Stopped]]
ReferencedActivity = Callable[[Referenced[HookContext]], Awaitable[Changed | Stopped]]


def _unechoed(fields: Sequence[str]) -> Callable[[HookContext], HookContext]:
    """Leave out of the result what the row's ``unechoed`` names (issue 13, the catalogue's why)."""

    def finish(out: HookContext) -> HookContext:
        return out.model_copy(update=dict.fromkeys(fields, ()))

    return finish


@final
class HarnessActivities(ActivityHost):
    """Every activity the worker registers, sharing one :class:`HookManager`.

    Args:
        manager: runs the chains.
        clock: see :class:`ActivityHost`.
        heartbeat_seconds: see :class:`ActivityHost`.
        retry_limits: the worker's maxima (its settings) for ``dispatch_hooks``; the
            defaults' when omitted.
        claims: see :class:`ActivityHost`.
        vault: see :class:`ActivityHost`.
    """

    def __init__(
        self,
        manager: HookManager,
        *,
        clock: Clock | None = None,
        heartbeat_seconds: float = 3.0,
        retry_limits: RetryLimits | None = None,
        claims: AttemptClaims | None = None,
        vault: MessageVault | None = None,
    ) -> None:
        super().__init__(
            manager,
            clock=clock,
            heartbeat_seconds=heartbeat_seconds,
            claims=claims,
            vault=vault,
        )
        self.retry_limits = retry_limits or RetryLimits()

    def activities(self) -> list[Activity | ReferencedActivity]:
        """One activity per activity name of the catalogue, as the worker registers them.

        Read from the live catalogue, so an operation added with
        a context class declared (by a plugin) before this call is among them.
        """
        operations: dict[str, list[str]] = {}
        for entry in entries():
            if entry.activity is not None:
                operations.setdefault(entry.activity, []).append(entry.operation)
        limit = functools.partial(bounded, limits=self.retry_limits, manager=self.manager)
        full = [hooked_activity(self, DISPATCH_HOOKS, list(RETRY_OPERATIONS), finish=limit)]
        lean: list[Activity | ReferencedActivity] = []  # since LEAN_RESULTS; full: older runs
        for name, ops in operations.items():
            row = entry_of(ops[0])
            retry = row.operation in RETRY_OPERATIONS
            echo = _unechoed(row.unechoed) if row.unechoed else None
            full.append(hooked_activity(self, name, ops, finish=limit if retry else echo))
            lean.append(
                hooked_activity(
                    self,
                    changes_name(name),
                    ops,
                    finish=limit if retry else None,
                    changed=row.unechoed,
                )
            )
            if len(ops) == 1 and message_fields(context_type(row.operation)):
                lean.append(referenced_activity(self, refs_name(name), row.operation))
        return [*full, *lean]


def hooked_activity(
    host: ActivityHost,
    name: str,
    operations: Sequence[str],
    *,
    finish: Callable[[HookContext], HookContext] | None = None,
    changed: Sequence[str] | None = None,
) -> Activity:
    """The activity ``name``, whose body is the chains of its operation.

    One activity per operation, rather than one taking a union of every context, so
    history, metrics and timeouts name the operation and each payload is validated as
    exactly its own context type. An activity of several operations (``dispatch_hooks``)
    takes the union of their contexts and runs the one its input's type names.

    Args:
        host: what the chains run with.
        name: the activity name Temporal sees (the catalogue's).
        operations: the catalogue operations it runs.
        finish: applied to the chain's output, out of every executor's reach (the
            retry limits of ``dispatch_hooks``).
        changed: answer with the fields the chains changed (:class:`Changed`), these
            input fields left out; ``None``: with the whole context.

    Returns:
        The activity, ready for a worker's ``activities=``.
    """
    classes = [context_type(operation) for operation in operations]
    only = operations[0] if len(operations) == 1 else None

    async def run(ctx: HookContext) -> HookContext | Changed | Stopped:
        out = await run_hooked(host, only or type(ctx).operation, ctx)
        if not isinstance(out, HookContext):
            return out
        if finish is not None:
            out = finish(out)
        return out if changed is None else changes(ctx, out, changed)

    # Temporal reads the payload type from the annotations: the context class itself.
    payload = functools.reduce(operator.or_, classes)
    answer = payload if changed is None else Changed
    run.__annotations__ = {"ctx": payload, "return": answer | Stopped}
    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = "\n".join(f"{cls.operation}: {cls.__doc__}" for cls in classes)
    setattr(run, HOOKED_ATTRIBUTE, only or "*")
    return activity.defn(name=name)(run)


def referenced_activity(host: ActivityHost, name: str, operation: str) -> ReferencedActivity:
    """The activity ``name`` of ``operation``, taking its messages by reference.

    :func:`hooked_activity` with ``changed`` set, whose input is :class:`Referenced`: the
    messages are kept and read back (:func:`.referenced.opened`) before the chains run,
    and a message of the result that it was sent is answered by its id.
    """
    cls = context_type(operation)
    leave = entry_of(operation).unechoed

    async def run(sent: Referenced[HookContext]) -> Changed | Stopped:
        try:
            ctx = await opened(host.vault, sent)
        except MessagesMissing as lost:  # said as run_hooked says any failure
            raise ApplicationError(str(lost), type=type(lost).__name__) from None
        out = await run_hooked(host, operation, ctx)
        if not isinstance(out, HookContext):
            return out
        return referred(sent, ctx, changes(ctx, out, leave))

    run.__annotations__ = {"sent": Referenced[cls], "return": Changed | Stopped}  # type: ignore[valid-type]  # parametrised at run time
    run.__name__ = run.__qualname__ = name.replace("-", "_")
    run.__doc__ = f"{operation}: {cls.__doc__} (messages by reference)"
    setattr(run, HOOKED_ATTRIBUTE, operation)
    return activity.defn(name=name)(run)
