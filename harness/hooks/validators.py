"""Parallel validators: a point's validators run at once, and the first in order that fails decides.

Validators sort after every other executor of their point (:mod:`harness.hooks.modes`) and
may only pass or abort, so none of them can see another's work: running them one by one
would only add their latencies (issue 15, point 6). :func:`run_order` builds, at
registration, the tuple the chain runs: two or more trailing validators become one
:class:`ValidatorGroup` registration, so a point with none or one costs nothing more.
Listings keep the individual registrations (:meth:`HookManager.registrations`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import final

from harness.hooks.contexts import HookContext
from harness.hooks.errors import HookAbort
from harness.hooks.executor import Registration


def run_order(registrations: Sequence[Registration]) -> tuple[Registration, ...]:
    """``registrations`` (sorted) as the chain runs them: trailing validators grouped if several."""
    first = len(registrations)
    while first and registrations[first - 1].mode == "validator":
        first -= 1
    if len(registrations) - first < 2:
        return tuple(registrations)
    group = ValidatorGroup(tuple(registrations[first:]))
    head = registrations[first]
    grouped = Registration(
        head.point, group, head.priority, head.sequence, group.name, "validator", head.rank
    )
    return (*registrations[:first], grouped)


@final
class ValidatorGroup:
    """Runs its validators concurrently on one context; the verdict is as if run in order.

    Every validator starts at once (the first in this task, the others in their own). The
    outcomes are read in sort order (priority, then registration): the first validator that
    vetoed or failed decides, after every validator before it has passed, and those after
    it are cancelled and awaited, so no veto leaves a task running unobserved. A point
    whose validators all pass waits for the slowest, not for their sum.
    """

    __slots__ = ("members", "name", "point")

    def __init__(self, members: tuple[Registration, ...]) -> None:
        self.members = members
        self.point = members[0].point
        self.name = f"validators({', '.join(reg.name for reg in members)})"

    async def __call__(self, ctx: HookContext, /) -> None:
        """Run every validator on ``ctx``; raise what the first failing one (in order) raised.

        Raises:
            HookAbort: a validator vetoed; ``point`` and ``executor`` name it.
            Exception: a validator failed (a note names it).
        """
        first, *rest = self.members
        loop = asyncio.get_running_loop()
        tasks = [loop.create_task(call_validator(reg, ctx)) for reg in rest]
        try:
            await call_validator(first, ctx)
            for task in tasks:
                await task
        except BaseException:
            for task in tasks:
                task.cancel()  # a no-op on those done
            # Reads every outcome, so none is left running or unretrieved.
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    def __repr__(self) -> str:
        return f"<ValidatorGroup {self.point} {self.name}>"


async def call_validator(reg: Registration, ctx: HookContext) -> None:
    """One validator's run, its abort or error labelled as the chain labels it."""
    try:
        await reg.executor(ctx)
    except HookAbort as abort:
        abort.point = abort.point or reg.point
        abort.executor = abort.executor or reg.name
        raise
    except Exception as error:
        error.add_note(f"raised by hook executor {reg.name} at {reg.point}")
        raise
