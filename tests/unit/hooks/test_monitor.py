"""The monitoring seam (STYLE rule 4): monitors compose in any order and undo in any order."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookTimeoutError
from harness.hooks.monitors.budget import install_budget


def watcher(seen: list[str], label: str):
    async def monitor(point, ctx, proceed, /):
        seen.append(f"{label}>{point}")
        try:
            return await proceed()
        finally:
            seen.append(f"{label}<{point}")

    return monitor


async def set_result(ctx):
    return ctx.model_copy(update={"result": ToolResult(content="ok")})


@pytest.mark.parametrize("undo_order", [(0, 1), (1, 0)], ids=["first-first", "second-first"])
async def test_two_monitors_each_keep_running_whichever_is_undone_first(
    manager, tool_ctx, undo_order
):
    manager.register("tool.invoked.in", set_result)
    seen: list[str] = []
    handles = [manager.add_monitor(watcher(seen, label)) for label in ("a", "b")]
    await manager.run("tool.invoked", tool_ctx)
    assert seen == [
        "b>tool.invoked.in",
        "a>tool.invoked.in",
        "a<tool.invoked.in",
        "b<tool.invoked.in",
    ]  # newest outermost

    first, second = undo_order
    handles[first]()
    seen.clear()
    await manager.run("tool.invoked", tool_ctx)
    kept = "ab"[second]
    assert seen == [f"{kept}>tool.invoked.in", f"{kept}<tool.invoked.in"]

    handles[first]()  # a second undo is a no-op and removes nothing else
    assert len(manager.monitors()) == 1
    handles[second]()
    seen.clear()
    out = await manager.run("tool.invoked", tool_ctx)
    assert seen == [] and manager.monitors() == () and out.result.content == "ok"


async def test_chain_and_operation_monitors_nest_and_see_failures(manager, tool_ctx):
    seen: list[str] = []
    manager.add_monitor(watcher(seen, "op"), around="operation")
    manager.add_monitor(watcher(seen, "chain"))

    async def veto(ctx):
        raise HookAbort("no")

    manager.register("tool.invoked.pre", veto)
    manager.register("tool.invoked.in", set_result)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    assert seen == [
        "op>tool.invoked",
        "chain>tool.invoked.pre",
        "chain<tool.invoked.pre",
        "op<tool.invoked",
    ]
    assert manager.aborts[-1].point == "tool.invoked.pre"  # still recorded by the manager


async def test_a_budget_and_a_watcher_undone_in_every_order_leave_the_other_working(
    manager, tool_ctx
):
    async def slow(ctx):
        await asyncio.sleep(0.2)

    manager.register("tool.invoked.pre", slow)
    for order in itertools.permutations(("budget", "watcher")):
        seen: list[str] = []
        handles = {
            "budget": install_budget(manager, 0.05),
            "watcher": manager.add_monitor(watcher(seen, "w")),
        }
        handles[order[0]]()
        if order[0] == "watcher":
            with pytest.raises(HookTimeoutError):
                await manager.run("tool.invoked", tool_ctx)
            assert seen == []
        else:
            await manager.run("tool.invoked", tool_ctx)  # no budget left: the slow pre passes
            assert seen == ["w>tool.invoked.pre", "w<tool.invoked.pre"]
        handles[order[1]]()
        assert manager.monitors() == ()


def test_an_unknown_scope_is_refused(manager):
    with pytest.raises(ValueError, match="unknown monitor scope"):
        manager.add_monitor(watcher([], "x"), around="executors")


async def test_abandon_sees_how_far_the_chains_got_under_an_operation_monitor(manager, tool_ctx):
    abandoned = []

    class Tagger:
        name = "tagger"

        async def __call__(self, ctx):
            return ctx.model_copy(update={"call": ctx.call.model_copy(update={"name": "tagged"})})

        def abandon(self, point, ctx, error):
            abandoned.append(ctx.call.name)

    async def broken(ctx):
        raise RuntimeError("disk on fire")

    manager.register("tool.invoked.pre", Tagger())
    manager.register("tool.invoked.in", broken)
    for _ in range(2):  # unwatched, then watched: the same context reaches abandon
        with pytest.raises(RuntimeError):
            await manager.run("tool.invoked", tool_ctx)
        manager.add_monitor(watcher([], "op"), around="operation")
    assert abandoned == ["tagged", "tagged"]
