"""The chain budget (issue 6): a chain that runs too long fails; an executor's own timeout stays."""

from __future__ import annotations

import asyncio

import pytest

from harness.hooks import HookTimeoutError
from harness.hooks.monitors.budget import install_budget


async def test_a_chain_over_budget_fails_naming_its_point_and_undo_lifts_it(manager, tool_ctx):
    async def slow(ctx):
        await asyncio.sleep(0.5)

    manager.register("tool.invoked.post", slow)
    undo = install_budget(manager, 0.05)
    with pytest.raises(HookTimeoutError, match=r"the chain at tool.invoked.post exceeded"):
        await manager.run("tool.invoked", tool_ctx)
    undo()
    assert manager.monitors() == ()


async def test_an_executors_own_timeout_is_not_the_budgets(manager, tool_ctx):
    async def times_out(ctx):
        raise TimeoutError("upstream took too long")

    manager.register("tool.invoked.pre", times_out)
    install_budget(manager, 5)
    with pytest.raises(TimeoutError, match="upstream took too long") as caught:
        await manager.run("tool.invoked", tool_ctx)
    assert not isinstance(caught.value, HookTimeoutError)


def test_a_budget_must_be_positive(manager):
    with pytest.raises(ValueError, match="positive"):
        install_budget(manager, 0)
