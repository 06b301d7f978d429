"""The chain time budget: a monitor around each chain on the manager's one seam (STYLE rule 4).

Each chain (pre, in or post of one operation) runs under ``asyncio.timeout``; the
undo handle :meth:`HookManager.add_monitor` returns takes it off again. Per-executor
timeouts are the configured wrapper's job (:mod:`harness.hooks.config.wrappers`).
"""

from __future__ import annotations

import asyncio
from typing import final

from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookTimeoutError
from harness.hooks.monitor import Monitored, MonitorHandle, Proceed


@final
class ChainBudget:
    """Fails a chain that runs longer than ``seconds`` with a :class:`HookTimeoutError`."""

    __slots__ = ("seconds",)

    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("a chain budget must be positive")
        self.seconds = seconds

    async def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> HookContext:
        """Run the chain ``point`` within the budget."""
        try:
            async with asyncio.timeout(self.seconds) as scope:
                return await proceed()
        except TimeoutError:
            if not scope.expired():
                raise  # an executor's own timeout, not the budget
            raise HookTimeoutError(point=point, scope="chain", seconds=self.seconds) from None

    def __repr__(self) -> str:
        return f"<ChainBudget {self.seconds} s>"


def install_budget(manager: Monitored, seconds: float) -> MonitorHandle:
    """Fail any chain of ``manager`` that runs longer than ``seconds``.

    Args:
        manager: whose chains to watch (other monitors stay, in any order).
        seconds: the budget of one chain; must be positive.

    Returns:
        ``undo``: removes this budget and nothing else.

    Raises:
        ValueError: ``seconds`` is not positive.
    """
    return manager.add_monitor(ChainBudget(seconds))
