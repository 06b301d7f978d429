"""What is running here: the operations an asyncio task is inside, outermost first.

:meth:`harness.hooks.HookManager.run` pushes each operation's redacted input on a
:class:`~contextvars.ContextVar` for as long as it runs, so log lines and metrics can name
the innermost one (:func:`current_operation`) and an operation nested too deep is aborted
(:func:`too_deep`) instead of ending in a ``RecursionError``. The manager's registry and
chains are :mod:`harness.hooks.manager`'s.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Final, NamedTuple

from harness import replies
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort

DEFAULT_MAX_DEPTH: Final = 16
"""Operations nested inside one another before the innermost is aborted (``max_depth``)."""

RUNNING: Final[ContextVar[tuple[HookContext, ...]]] = ContextVar(
    "harness_hooks_running", default=()
)
"""The operations this task (and the tasks it spawned) is inside, outermost first: each one's
redacted input context (its identity, which no executor may change, names it for logs)."""


log: Final = logging.getLogger(__name__)


class RunningOperation(NamedTuple):
    """The innermost operation being run here: what log lines and metrics are labelled with."""

    operation: str
    task_id: str
    correlation_id: str


def current_operation() -> RunningOperation | None:
    """The innermost operation :meth:`HookManager.run` is running in this asyncio task, if any.

    A :class:`~contextvars.ContextVar`, so concurrent operations each see their own and
    tasks spawned inside an operation inherit it; ids come from the redacted context.
    """
    running = RUNNING.get()
    if not running:
        return None
    ctx = running[-1]
    task_id = ctx.task.task_id if ctx.task is not None else ""
    return RunningOperation(type(ctx).operation, task_id, ctx.correlation_id)


def too_deep(running: tuple[HookContext, ...], operation: str) -> HookAbort:
    """The abort of ``operation`` started inside ``running``, one level past the limit."""
    chain = " -> ".join((*(type(ctx).operation for ctx in running), operation))
    log.warning("operations nested %d deep: %s", len(running) + 1, chain)
    return HookAbort(
        # Said in a thread as the operation's stop: no operation's name (the log has them).
        replies.nested_too_deep(len(running) + 1, len(running)),
        point=f"{operation}.pre",
        executor="harness.hooks.HookManager",
    )
