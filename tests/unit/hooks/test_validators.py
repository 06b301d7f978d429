"""Parallel validators (issue 15, point 6): a point's validators run at once, the verdict in order.

Concurrency is shown without timing: validators that each wait for the other's start
would deadlock if run one by one (``asyncio.timeout`` turns that into a failure).
"""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookManager, HookValidationError
from harness.hooks.validators import ValidatorGroup

PRE = "tool.invoked.pre"


def waits_for(mine: asyncio.Event, other: asyncio.Event, *, veto: str | None = None):
    async def validator(ctx):
        mine.set()
        await other.wait()
        if veto:
            raise HookAbort(veto, refusal=True)

    validator.__qualname__ = f"waits_{veto or 'pass'}"
    return validator


async def body(ctx):
    return ctx.model_copy(update={"result": ToolResult(content="ran")})


async def test_validators_of_a_point_run_concurrently(manager, tool_ctx):
    a, b = asyncio.Event(), asyncio.Event()
    manager.register(PRE, waits_for(a, b), priority=1, mode="validator")
    manager.register(PRE, waits_for(b, a), priority=2, mode="validator")
    manager.register("tool.invoked.in", body)
    async with asyncio.timeout(5):  # one by one, the first would wait for the second forever
        out = await manager.run("tool.invoked", tool_ctx)
    assert out.result.content == "ran"


async def test_the_first_veto_in_sort_order_wins_and_later_validators_are_cancelled(
    manager, tool_ctx
):
    first_started, second_vetoed = asyncio.Event(), asyncio.Event()
    never = asyncio.Event()
    cancelled: list[str] = []

    async def slow_veto(ctx):
        first_started.set()
        await second_vetoed.wait()  # vetoes only after the later validator already did
        raise HookAbort("first in order", refusal=True)

    async def quick_veto(ctx):
        second_vetoed.set()
        raise HookAbort("quicker, but second in order", refusal=True)

    async def hangs(ctx):
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.append("hangs")
            raise

    manager.register(PRE, hangs, priority=3, mode="validator")
    manager.register(PRE, quick_veto, priority=2, mode="validator")
    manager.register(PRE, slow_veto, priority=1, mode="validator")
    before = len(asyncio.all_tasks())
    async with asyncio.timeout(5):
        with pytest.raises(HookAbort, match="first in order") as caught:
            await manager.run("tool.invoked", tool_ctx)
    assert caught.value.executor.endswith("slow_veto") and caught.value.point == PRE
    assert cancelled == ["hangs"] and len(asyncio.all_tasks()) == before  # nothing left running
    assert [r.reason for r in manager.aborts] == ["first in order"]


async def test_a_later_veto_waits_for_the_earlier_validators_to_pass(manager, tool_ctx):
    release = asyncio.Event()
    passed: list[str] = []

    async def slow_pass(ctx):
        await release.wait()
        passed.append("slow_pass")

    async def quick_veto(ctx):
        release.set()
        raise HookAbort("no")

    manager.register(PRE, slow_pass, priority=1, mode="validator")
    manager.register(PRE, quick_veto, priority=2, mode="validator")
    with pytest.raises(HookAbort, match="no") as caught:
        await manager.run("tool.invoked", tool_ctx)
    assert caught.value.executor.endswith("quick_veto") and passed == ["slow_pass"]


async def test_a_failing_validator_in_a_group_is_named(manager, tool_ctx):
    async def fine(ctx):
        return None

    async def sneaky(ctx):
        return ctx.model_copy(update={"entities": {"x": "y"}})

    async def broken(ctx):
        raise RuntimeError("validator bug")

    manager.register("tool.invoked.post", fine, mode="validator")
    manager.register("tool.invoked.post", sneaky, mode="validator")
    with pytest.raises(HookValidationError, match=r"sneaky.*may only pass"):
        await manager.run("tool.invoked", tool_ctx)
    manager.register("tool.invoked.pre", fine, mode="validator")
    manager.register("tool.invoked.pre", broken, mode="validator")
    with pytest.raises(RuntimeError) as caught:
        await manager.run("tool.invoked", tool_ctx)
    assert any("broken at tool.invoked.pre" in note for note in caught.value.__notes__)


async def test_rewriters_keep_priority_order_and_every_validator_sees_their_result(
    manager, recorder, tool_ctx
):
    def tag(label: str):
        return lambda ctx: ctx.model_copy(update={"entities": {**ctx.entities, label: "1"}})

    seen: list[tuple[str, ...]] = []

    async def check(ctx):
        seen.append(tuple(ctx.entities))

    manager.register(PRE, check, priority=0, mode="validator")
    manager.register(PRE, recorder.executor("b", tag("b")), priority=20)
    manager.register(PRE, check, priority=-5, mode="validator")
    manager.register(PRE, recorder.executor("a", tag("a")), priority=10)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["a", "b"]
    assert seen == [("a", "b"), ("a", "b")]


async def test_listings_keep_each_validator_while_the_chain_runs_one_group(manager, tool_ctx):
    async def v(ctx):
        return None

    async def normal(ctx):
        return None

    manager.register(PRE, normal)
    one = manager.register(PRE, v, mode="validator")
    assert manager._runs[PRE] == manager._chains[PRE]  # zero or one validator: no group
    manager.register(PRE, v, priority=7, mode="validator")
    assert [r.mode for r in manager.registrations(PRE)] == ["normal", "validator", "validator"]
    normal_reg, group = manager._runs[PRE]
    assert normal_reg.mode == "normal"
    assert isinstance(group.executor, ValidatorGroup) and len(group.executor.members) == 2
    assert [r.priority for r in group.executor.members] == [7, 500]
    manager.unregister(one)
    assert manager._runs[PRE] == manager._chains[PRE]


async def test_abandon_still_reaches_each_grouped_validator(manager, tool_ctx):
    abandoned: list[str] = []

    class Lock:
        def __init__(self, name: str) -> None:
            self.name = name

        async def __call__(self, ctx):
            return None

        def abandon(self, point, ctx, error):
            abandoned.append(self.name)

    async def failing(ctx):
        raise RuntimeError("body failed")

    manager.register(PRE, Lock("one"), mode="validator")
    manager.register(PRE, Lock("two"), mode="validator")
    manager.register("tool.invoked.in", failing)
    with pytest.raises(RuntimeError):
        await manager.run("tool.invoked", tool_ctx)
    assert abandoned == ["one", "two"]


async def test_cancelling_the_operation_cancels_every_validator(tool_ctx):
    manager = HookManager()
    started = [asyncio.Event(), asyncio.Event()]
    cancelled: list[int] = []

    def hang(i: int):
        async def validator(ctx):
            started[i].set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(i)
                raise

        return validator

    manager.register(PRE, hang(0), mode="validator")
    manager.register(PRE, hang(1), mode="validator")
    run = asyncio.create_task(manager.run("tool.invoked", tool_ctx))
    for event in started:
        await event.wait()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert sorted(cancelled) == [0, 1]


async def test_a_replace_regroups_and_a_failed_one_keeps_the_group_it_had(manager, tool_ctx):
    a, b = asyncio.Event(), asyncio.Event()
    first = manager.register(PRE, waits_for(a, b), priority=1, mode="validator")
    manager.register(PRE, waits_for(b, a), priority=2, mode="validator")
    before = manager._runs[PRE]
    with pytest.raises(ValueError, match=r"cannot run at tool\.invoked\.in"):
        manager.replace([first], [("tool.invoked.in", waits_for(a, b), 0, "validator")])
    assert manager._runs[PRE] is before  # the hot reload's rollback restores the group too
    async with asyncio.timeout(5):
        await manager.run("tool.invoked", tool_ctx)
    manager.replace([first], [])
    assert [r.mode for r in manager._runs[PRE]] == ["validator"]
    assert not isinstance(manager._runs[PRE][0].executor, ValidatorGroup)
