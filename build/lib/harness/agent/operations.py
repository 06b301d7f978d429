"""Operations: what the agent loop runs its operations through (a port, not a runner).

One Protocol in a module of its own, so the loop and its steps both depend on it
and not on each other. The HookManager satisfies it in unit tests; in the task
workflow :class:`harness.temporal.agent_runner.LoopOperations` does, running one
hooked activity per operation (the workflow's retrying runner is a different thing:
:class:`harness.temporal.retries.OperationRunner`).
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from harness.hooks import HookContext

C = TypeVar("C", bound=HookContext)


class Operations(Protocol):
    """Performs one operation: its pre, in and post chains (HookManager.run's shape)."""

    async def run(self, operation: str, ctx: C) -> C: ...
