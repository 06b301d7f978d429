"""The harness's activities: one per hook-wrapped operation the task workflow performs.

Each takes one pydantic context and returns it after pre, in and post ran (see
:mod:`harness.temporal.wrapper`): activities compute, the workflow acts on what
they return. ``dispatch_hooks`` is inherited from :mod:`harness.temporal.dispatch`, the
agent loop's activities from :mod:`harness.temporal.loop_activities`.
"""

from __future__ import annotations

from temporalio import activity

from harness.hooks.contexts import (
    CommandInvokedContext,
    PersistenceReadContext,
    PersistenceWriteContext,
    RequestReceivedContext,
    SubtaskSpawnedContext,
    TaskCompleteContext,
    TaskCreatedContext,
    TaskStateChangedContext,
)
from harness.temporal import (
    COMMAND_INVOKED,
    PERSISTENCE_READ,
    PERSISTENCE_WRITE,
    REQUEST_RECEIVED,
    SUBTASK_SPAWNED,
    TASK_COMPLETE,
    TASK_CREATED,
    TASK_STATE_CHANGED,
)
from harness.temporal.dispatch import DispatchHooks
from harness.temporal.loop_activities import LoopActivities
from harness.temporal.wrapper import hooked


class HarnessActivities(DispatchHooks, LoopActivities):
    """Every activity the worker registers, as methods sharing one :class:`HookManager`.

    Method bodies only return their input: the operation's body is its ``in`` chain
    (default bodies come from :mod:`harness.hooks.builtin`).
    """

    @activity.defn(name=REQUEST_RECEIVED)
    @hooked("request.received")
    async def request_received(self, ctx: RequestReceivedContext) -> RequestReceivedContext:
        """A plain message arrived; returns where it goes (a new task or a running one)."""
        return ctx

    @activity.defn(name=TASK_CREATED)
    @hooked("task.created")
    async def task_created(self, ctx: TaskCreatedContext) -> TaskCreatedContext:
        """A task is about to start; returns the spec it starts with."""
        return ctx

    @activity.defn(name=TASK_STATE_CHANGED)
    @hooked("task.state_changed")
    async def task_state_changed(self, ctx: TaskStateChangedContext) -> TaskStateChangedContext:
        """A task changes status; returns the status to apply."""
        return ctx

    @activity.defn(name=TASK_COMPLETE)
    @hooked("task.complete")
    async def task_complete(self, ctx: TaskCompleteContext) -> TaskCompleteContext:
        """A task reached a final status; returns its summary."""
        return ctx

    @activity.defn(name=PERSISTENCE_READ)
    @hooked("persistence.read")
    async def persistence_read(self, ctx: PersistenceReadContext) -> PersistenceReadContext:
        """Reads a task artefact."""
        return ctx

    @activity.defn(name=PERSISTENCE_WRITE)
    @hooked("persistence.write")
    async def persistence_write(self, ctx: PersistenceWriteContext) -> PersistenceWriteContext:
        """Writes a task artefact (once per idempotency key)."""
        return ctx

    @activity.defn(name=SUBTASK_SPAWNED)
    @hooked("subtask.spawned")
    async def subtask_spawned(self, ctx: SubtaskSpawnedContext) -> SubtaskSpawnedContext:
        """A sub-task is about to be spawned; returns the spec the workflow starts."""
        return ctx

    @activity.defn(name=COMMAND_INVOKED)
    @hooked("command.invoked")
    async def command_invoked(self, ctx: CommandInvokedContext) -> CommandInvokedContext:
        """A slash command; returns its reply and the effects the workflow applies."""
        return ctx
