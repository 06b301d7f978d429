"""Operations: what the agent loop runs its operations through (a port, not a runner).

One Protocol in a module of its own, so the loop and its steps both depend on it and not
on each other. It takes only the context: the operation, and everything that follows from
it (its activity, whether a retry is said in the thread), is ``type(ctx)``'s catalogue row.
:class:`InProcess` is the port on a :class:`~harness.hooks.HookManager` (unit tests, a
named agent's loop inside its activity); in the task workflow
:class:`harness.temporal.workflow.agent_runner.LoopOperations` is, running one hooked activity per
operation (the workflow's retrying runner is a different thing:
:class:`harness.temporal.workflow.retries.OperationRunner`).

The loop may not import Temporal, yet what it performs is what a task's workflow
schedules: a change to it (a new operation, one moved or dropped) must not reach a run
that began before it, or that run fails its replay. :meth:`Operations.patched` is the
loop's ``workflow.patched``: guard the changed call site with ``if self.patched(ID)``,
``ID`` a constant of the loop's module listed in
``harness/temporal/workflow/patches.py`` ``PATCHES``.
"""

from __future__ import annotations

from typing import Protocol, TypeVar, final, runtime_checkable

from harness.domain.outcome import Done, Stopped, stopped
from harness.hooks import HookAbort, HookContext, HookManager

C = TypeVar("C", bound=HookContext)


class Operations(Protocol):
    """Performs ``type(ctx)``'s operation on ``ctx``: its pre, in and post chains."""

    async def run(self, ctx: C) -> C: ...

    def patched(self, patch_id: str) -> bool:
        """Whether this run takes the code guarded by ``patch_id`` (Temporal's
        ``workflow.patched`` in a task's workflow: false while replaying a history recorded
        before it; true where nothing is replayed)."""
        ...


@final
class InProcess:
    """:class:`Operations` in this process: ``manager.run(type(ctx).operation, ctx)``.

    Args:
        manager: runs the chains.
    """

    __slots__ = ("manager",)

    def __init__(self, manager: HookManager) -> None:
        self.manager = manager

    async def run(self, ctx: C) -> C:
        """Run the chains of ``ctx``'s operation (DESIGN.md's ``HookManager.run``)."""
        return await self.manager.run(type(ctx).operation, ctx)

    def patched(self, patch_id: str) -> bool:
        """True: a loop in process (a named agent's, inside its activity) is never replayed."""
        return True


@runtime_checkable
class Performs(Protocol):
    """An :class:`Operations` that answers an executor's "no" as a value (the workflow's)."""

    async def perform(self, ctx: C) -> Done[C] | Stopped: ...


async def perform(runner: Operations, ctx: C) -> Done[C] | Stopped:
    """Perform ``ctx``'s operation; what an executor said, as a value the loop reads.

    Through :meth:`Performs.perform` where the runner has it (the workflow's: the abort
    came back as the activity's result), else by ``run`` with the abort read here (the
    manager in process). A failure is not an answer: it propagates.
    """
    if isinstance(runner, Performs):
        return await runner.perform(ctx)
    try:
        return Done(await runner.run(ctx))
    except HookAbort as abort:
        return stopped(abort)
