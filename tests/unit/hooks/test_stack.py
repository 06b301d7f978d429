"""executor_on_stack reads the running executor off a stack, innermost chain first (issue 26)."""

from __future__ import annotations

import sys

from harness.hooks import HookManager, Registration, executor_on_stack
from harness.hooks.contexts import HeartbeatTickContext, ShutdownContext


async def test_the_stack_of_an_executor_names_its_registration_and_others_none():
    manager = HookManager()
    seen: list[Registration | None] = []

    async def outer(ctx: ShutdownContext) -> None:
        seen.append(executor_on_stack(sys._getframe()))
        await manager.run("heartbeat.tick", HeartbeatTickContext())

    async def inner(ctx: HeartbeatTickContext) -> None:
        seen.append(executor_on_stack(sys._getframe()))

    outer_reg = manager.register("shutdown.pre", outer)
    inner_reg = manager.register("heartbeat.tick.post", inner)
    await manager.run("shutdown", ShutdownContext(reason="test"))

    assert [(r.name, r.point) for r in seen if r is not None] == [
        (outer_reg.name, "shutdown.pre"),
        (inner_reg.name, "heartbeat.tick.post"),
    ]
    assert len(seen) == 2
    assert executor_on_stack(sys._getframe()) is None
    assert executor_on_stack(None) is None
