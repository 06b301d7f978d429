"""In-flight operations of one generation of the hooks file: what a hot reload waits for.

An operation monitor (the one seam, :meth:`HookManager.add_monitor`) counting the operations
that started while one applied file was live. A reload (:mod:`harness.hooks.config.reload`)
swaps it out with that file's chains, then closes the removed executors' connections once
the count is zero: an operation in flight may still reach a removed post executor. Only a
file holding connections installs one, so other workers keep the unwatched fast path.
"""

from __future__ import annotations

import asyncio
from typing import final

from harness.hooks.contexts import HookContext
from harness.hooks.monitor import Proceed


@final
class InFlight:
    """Counts the operations running through it; :meth:`drained` waits for none to be left."""

    __slots__ = ("_idle", "count")

    def __init__(self) -> None:
        self.count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    async def __call__(self, point: str, ctx: HookContext, proceed: Proceed, /) -> HookContext:
        """Run the operation ``point``, counted while it runs."""
        self.count += 1
        self._idle.clear()
        try:
            return await proceed()
        finally:
            self.count -= 1
            if self.count == 0:
                self._idle.set()

    async def drained(self, timeout: float) -> bool:
        """Whether every counted operation finished within ``timeout`` seconds.

        Args:
            timeout: the most to wait.

        Returns:
            ``True`` once none runs; ``False`` when some still ran after ``timeout``.
        """
        try:
            async with asyncio.timeout(timeout):
                await self._idle.wait()
        except TimeoutError:
            return False
        return True

    def __repr__(self) -> str:
        return f"<InFlight {self.count}>"
