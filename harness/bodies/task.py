"""Default bodies of a task's life: request.received, task.created, task.state_changed and
task.complete.

Bodies compute; the task workflow applies what they return (DESIGN.md, "Semantics").
Contexts are in :mod:`harness.hooks.contexts.task`.
"""

from __future__ import annotations

from typing import final

from harness import replies
from harness.bodies.marker import Bodies, body
from harness.domain import RequestRoute
from harness.domain.task import FINAL_STATUSES
from harness.hooks import HookAbort
from harness.hooks.contexts import (
    RequestReceivedContext,
    TaskCompleteContext,
    TaskCreatedContext,
    TaskStateChangedContext,
)


@final
class TaskBodies(Bodies):
    """Bodies of the task operations; they need nothing but the context."""

    @body(RequestReceivedContext)
    async def request_received(self, ctx: RequestReceivedContext) -> RequestReceivedContext:
        """Route to the task the request names; a reply in that task's thread only reaches it.

        The caller names the task: the one its thread is bound to (``task.thread`` set
        to that thread), or the channel's task for anything else, which may then be
        opened. So a reply in an old thread never starts a task by accident.

        Raises:
            HookAbort: the request names no task, or has no text.
        """
        if ctx.task is None or not ctx.text.strip():
            raise HookAbort(replies.NO_TARGET)
        in_its_thread = bool(ctx.task.thread) and ctx.task.thread == ctx.thread
        route = RequestRoute(
            task_id=ctx.task.task_id, new_task=not in_its_thread, text=ctx.text.strip()
        )
        return ctx.model_copy(update={"result": route})

    @body(TaskCreatedContext)
    async def task_created(self, ctx: TaskCreatedContext) -> TaskCreatedContext:
        """Accept the spec as given."""
        return ctx.model_copy(update={"result": ctx.spec})

    @body(TaskStateChangedContext)
    async def task_state_changed(self, ctx: TaskStateChangedContext) -> TaskStateChangedContext:
        """Apply the requested status, unless the task already ended.

        Raises:
            HookAbort: the task is in a final status; it cannot change any more.
        """
        if ctx.from_status in FINAL_STATUSES:
            raise HookAbort(replies.already_ended(ctx.from_status, ctx.to_status))
        return ctx.model_copy(update={"result": ctx.to_status})

    @body(TaskCompleteContext)
    async def task_complete(self, ctx: TaskCompleteContext) -> TaskCompleteContext:
        """Summarise the outcome in one line (what the bot posts to the thread)."""
        title = ctx.task.task_id if ctx.task else "task"
        said = ctx.summary if ctx.summary != ctx.status else ""  # not "cancelled: cancelled"
        summary = f"{title} {ctx.status}" + (f": {said}" if said else "")
        return ctx.model_copy(update={"result": summary})
