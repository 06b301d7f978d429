"""Operations: what the agent loop runs its operations through (a port, not a runner).

One Protocol in a module of its own, so the loop and its steps both depend on it
and not on each other. The HookManager satisfies it in unit tests; in the task
workflow :class:`harness.temporal.agent_runner.LoopOperations` does, running one
hooked activity per operation (the workflow's retrying runner is a different thing:
:class:`harness.temporal.retries.OperationRunner`).
"""

from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

from harness.domain.outcome import Done, Stopped, stopped
from harness.hooks import HookAbort, HookContext

C = TypeVar("C", bound=HookContext)


class Operations(Protocol):
    """Performs one operation: its pre, in and post chains (HookManager.run's shape)."""

    async def run(self, operation: str, ctx: C) -> C: ...


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
        return Done(await runner.run(type(ctx).operation, ctx))
    except HookAbort as abort:
        return stopped(abort)
