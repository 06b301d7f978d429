"""The chain time budget: a monitor on the manager's one instrumentation seam (STYLE rule 4).

It replaces ``HookManager._run_chain`` with a version that runs each chain (pre, in
or post of one operation) under ``asyncio.timeout`` and returns an ``undo`` callable,
as pluggy's ``add_hookcall_monitoring`` does. Per-executor timeouts are the
configured wrapper's job (:mod:`harness.hooks.config.wrappers`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from harness.hooks.chain import Scrub
from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookTimeoutError
from harness.hooks.executor import Registration
from harness.hooks.manager import HookManager


def install_budget(manager: HookManager, seconds: float) -> Callable[[], None]:
    """Fail any chain of ``manager`` that runs longer than ``seconds``.

    Args:
        manager: whose chain runner to wrap (whatever is installed now, so monitors stack).
        seconds: the budget of one chain; must be positive.

    Returns:
        ``undo``: puts back the runner that was installed before.

    Raises:
        ValueError: ``seconds`` is not positive.
    """
    if seconds <= 0:
        raise ValueError("a chain budget must be positive")
    inner = manager._run_chain

    async def run_chain_within_budget(
        registrations: Sequence[Registration],
        ctx: HookContext,
        *,
        until_result: bool = False,
        scrub: Scrub | None = None,
    ) -> HookContext:
        try:
            async with asyncio.timeout(seconds) as scope:
                return await inner(registrations, ctx, until_result=until_result, scrub=scrub)
        except TimeoutError:
            if not scope.expired():
                raise  # an executor's own timeout, not the budget
            raise HookTimeoutError(
                point=registrations[0].point, scope="chain", seconds=seconds
            ) from None

    manager._run_chain = run_chain_within_budget  # the seam (STYLE rule 4)

    def undo() -> None:
        manager._run_chain = inner

    return undo
