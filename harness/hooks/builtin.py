"""The built-in plugin: the default body of every operation the worker performs.

Each body is an ordinary ``in`` executor at :data:`BUILTIN_BODY_PRIORITY`, so any
executor registered at a lower priority that sets ``result`` replaces it (DESIGN.md,
"Semantics"). Bodies compute; the task workflow applies what they return. Slash
commands register their own bodies (``commands/``); the agent loop's come with it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, final

from harness.domain import Artefact, RequestRoute, RetryDecision, TaskStatus
from harness.hooks.catalogue import BUILTIN_BODY_PRIORITY
from harness.hooks.contexts import (
    ActivityFailedContext,
    ActivityRetriedContext,
    HeartbeatTickContext,
    PersistenceReadContext,
    PersistenceWriteContext,
    RequestReceivedContext,
    ShutdownContext,
    SubtaskSpawnedContext,
    TaskCompleteContext,
    TaskCreatedContext,
    TaskStateChangedContext,
)
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager
from harness.providers import RandomSource

if TYPE_CHECKING:  # the store is a dependency handed in, not something hooks import
    from harness.store import ArtefactStore

FINAL_STATUSES: Final = frozenset({TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELLED})


@dataclass(frozen=True, slots=True)
class RetryDefaults:
    """How the default ``activity.failed`` body spaces out attempts.

    The n-th retry waits ``initial * multiplier ** (n - 1)`` seconds, capped at
    ``maximum``, times a random factor in ``[1 - jitter, 1 + jitter]`` so that many
    tasks failing together do not retry in lockstep.
    """

    initial_seconds: float = 1.0
    multiplier: float = 2.0
    maximum_seconds: float = 60.0
    jitter: float = 0.2
    max_attempts: int | None = None
    """A cap on attempts (the hooks configuration's ``[retry]``); the context's own limit,
    e.g. one attempt for commands, still applies."""
    non_retryable: frozenset[str] = frozenset()
    """Error type names that are never retried."""


@final
class BuiltinPlugin:
    """The default bodies; methods are registered one per operation by :func:`register_builtin`.

    Args:
        store: where ``persistence.read`` and ``persistence.write`` go.
        random: jitter for retry backoff (a provider, so tests can fix it).
        retry: the backoff schedule.
    """

    def __init__(self, *, store: ArtefactStore, random: RandomSource, retry: RetryDefaults) -> None:
        self.store = store
        self.random = random
        self.retry = retry

    async def request_received(self, ctx: RequestReceivedContext) -> RequestReceivedContext:
        """Route to the task the request names; a reply in that task's thread only reaches it.

        The caller names the task: the one its thread is bound to (``task.thread`` set
        to that thread), or the channel's task for anything else, which may then be
        opened. So a reply in an old thread never starts a task by accident.

        Raises:
            HookAbort: the request names no task, or has no text.
        """
        if ctx.task is None or not ctx.text.strip():
            raise HookAbort("a request needs a target task and some text")
        in_its_thread = bool(ctx.task.thread) and ctx.task.thread == ctx.thread
        route = RequestRoute(task_id=ctx.task.task_id, new_task=not in_its_thread,
                             text=ctx.text.strip())  # fmt: skip
        return ctx.model_copy(update={"result": route})

    async def task_created(self, ctx: TaskCreatedContext) -> TaskCreatedContext:
        """Accept the spec as given."""
        return ctx.model_copy(update={"result": ctx.spec})

    async def task_state_changed(self, ctx: TaskStateChangedContext) -> TaskStateChangedContext:
        """Apply the requested status, unless the task already ended.

        Raises:
            HookAbort: the task is in a final status; it cannot change any more.
        """
        if ctx.from_status in FINAL_STATUSES:
            raise HookAbort(f"task already {ctx.from_status}; cannot become {ctx.to_status}")
        return ctx.model_copy(update={"result": ctx.to_status})

    async def task_complete(self, ctx: TaskCompleteContext) -> TaskCompleteContext:
        """Summarise the outcome in one line (what the bot posts to the thread)."""
        title = ctx.task.task_id if ctx.task else "task"
        summary = f"{title} {ctx.status}" + (f": {ctx.summary}" if ctx.summary else "")
        return ctx.model_copy(update={"result": summary})

    async def heartbeat_tick(self, ctx: HeartbeatTickContext) -> HeartbeatTickContext:
        """Keep going; a policy executor may set ``False`` to stop a runaway operation."""
        return ctx.model_copy(update={"result": True})

    async def shutdown(self, ctx: ShutdownContext) -> ShutdownContext:
        """Say what happens to the work in flight."""
        reason = ctx.reason or "requested"
        note = f"worker stopping ({reason}); {ctx.in_flight} activities in flight"
        return ctx.model_copy(update={"result": note})

    async def persistence_read(self, ctx: PersistenceReadContext) -> PersistenceReadContext:
        """Read the latest version, or an empty artefact at version 0 when there is none."""
        found = await self.store.read(ctx.key)
        return ctx.model_copy(update={"result": found or Artefact(key=ctx.key, content="")})

    async def persistence_write(self, ctx: PersistenceWriteContext) -> PersistenceWriteContext:
        """Write a new version, once per idempotency key (activities run at least once)."""
        stored = await self.store.write(ctx.key, ctx.content, idempotency_key=ctx.idempotency_key)
        return ctx.model_copy(update={"result": stored})

    async def subtask_spawned(self, ctx: SubtaskSpawnedContext) -> SubtaskSpawnedContext:
        """Give the sub-task an id if it has none, stable across retries of this spawn."""
        spec = ctx.spec
        if not spec.task_id:
            parent = ctx.task.task_id if ctx.task else "task"
            digest = hashlib.sha256(ctx.idempotency_key.encode()).hexdigest()[:12]
            spec = spec.model_copy(update={"task_id": f"{parent}/sub-{digest}"})
        return ctx.model_copy(update={"result": spec})

    async def activity_failed(self, ctx: ActivityFailedContext) -> ActivityFailedContext:
        """Retry with exponential backoff and jitter until ``max_attempts`` is reached."""
        limit = min(ctx.max_attempts, self.retry.max_attempts or ctx.max_attempts)
        if not ctx.retryable or ctx.error_type in self.retry.non_retryable:
            decision = RetryDecision(retry=False, reason=f"{ctx.error_type}: {ctx.error_message}")
        elif ctx.attempt >= limit:
            decision = RetryDecision(
                retry=False,
                reason=f"gave up after {ctx.attempt} attempts: "
                f"{ctx.error_type}: {ctx.error_message}",
            )
        else:
            decision = RetryDecision(retry=True, backoff_seconds=self.backoff(ctx.attempt))
        return ctx.model_copy(update={"result": decision})

    async def activity_retried(self, ctx: ActivityRetriedContext) -> ActivityRetriedContext:
        """Use the backoff the failure decided (never negative)."""
        return ctx.model_copy(update={"result": max(0.0, ctx.backoff_seconds)})

    def backoff(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (counting from 1)."""
        retry = self.retry
        base = min(retry.maximum_seconds, retry.initial_seconds * retry.multiplier ** (attempt - 1))
        factor = self.random.uniform(1.0 - retry.jitter, 1.0 + retry.jitter)
        return min(retry.maximum_seconds, base * factor)


def register_builtin(
    manager: HookManager,
    *,
    store: ArtefactStore,
    random: RandomSource,
    retry: RetryDefaults | None = None,
) -> list[Registration]:
    """Register the default body of each operation the worker performs.

    Args:
        manager: where to register.
        store: the artefact store behind ``persistence.read``/``persistence.write``.
        random: jitter source for retry backoff.
        retry: backoff schedule; :class:`RetryDefaults` when omitted.

    Returns:
        The registrations, in the order made (for logs and for unregistering).
    """
    plugin = BuiltinPlugin(store=store, random=random, retry=retry or RetryDefaults())
    bodies = {
        "request.received": plugin.request_received,
        "task.created": plugin.task_created,
        "task.state_changed": plugin.task_state_changed,
        "task.complete": plugin.task_complete,
        "heartbeat.tick": plugin.heartbeat_tick,
        "shutdown": plugin.shutdown,
        "persistence.read": plugin.persistence_read,
        "persistence.write": plugin.persistence_write,
        "subtask.spawned": plugin.subtask_spawned,
        "activity.failed": plugin.activity_failed,
        "activity.retried": plugin.activity_retried,
    }
    return [
        manager.register(f"{operation}.in", body, priority=BUILTIN_BODY_PRIORITY)  # type: ignore[arg-type]  # each body takes its operation's own context type
        for operation, body in bodies.items()
    ]
