"""What one dispatch does not pay for (issue 27), and the guarantees that still hold without it."""

from __future__ import annotations

import pytest

from harness.hooks import HookAbort, HookManager, HookValidationError
from harness.hooks.contexts import HookContext, ToolInvokedContext
from harness.hooks.monitor import Proceed
from harness.hooks.running import RunningOperation, current_operation

TOKEN = "xoxb-123456789012-abcdefghijkl"


async def test_an_executor_returning_its_own_context_hands_on_the_very_same_object(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    seen: list[ToolInvokedContext] = []

    async def same(ctx: ToolInvokedContext) -> ToolInvokedContext:
        seen.append(ctx)
        return ctx

    manager.register("tool.invoked.pre", same, priority=1)
    manager.register("tool.invoked.pre", same, priority=2)
    out = await manager.run("tool.invoked", tool_ctx)
    assert seen[0] is seen[1] is out is tool_ctx  # nothing rebuilt, nothing re-validated


async def test_a_replacement_is_still_validated_after_a_pass_through(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    async def same(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx

    async def forge(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={"correlation_id": "corr-forged"})

    manager.register("tool.invoked.pre", same, priority=1)
    manager.register("tool.invoked.pre", forge, priority=2)
    with pytest.raises(HookValidationError, match="correlation_id"):
        await manager.run("tool.invoked", tool_ctx)


async def test_a_context_run_again_after_a_secret_is_configured_comes_back_masked(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    assert await manager.run("tool.invoked", tool_ctx) is tool_ctx  # proved clean, kept
    manager.redactor.add_secret("Paris")
    seen: list[ToolInvokedContext] = []

    async def look(ctx: ToolInvokedContext) -> None:
        seen.append(ctx)

    manager.register("tool.invoked.pre", look)
    out = await manager.run("tool.invoked", tool_ctx)
    assert "Paris" not in seen[0].model_dump_json() and "Paris" not in out.model_dump_json()


async def test_the_phases_run_follow_registration_unregistration_and_replace(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    ran: list[str] = []

    def executor(label: str):
        async def run(ctx: ToolInvokedContext) -> None:
            ran.append(label)

        return run

    first = manager.register("tool.invoked.post", executor("post"))
    manager.register("tool.invoked.pre", executor("pre"))
    await manager.run("tool.invoked", tool_ctx)
    manager.unregister(first)
    await manager.run("tool.invoked", tool_ctx)
    manager.replace([], [("tool.invoked.in", executor("in"), 1, "normal")])
    await manager.run("tool.invoked", tool_ctx)
    with pytest.raises(ValueError):  # a failed replace publishes nothing
        manager.replace([first], [("tool.invoked.post", executor("lost"), 1, "normal")])
    await manager.run("tool.invoked", tool_ctx)
    assert ran == ["pre", "post", "pre", "pre", "in", "pre", "in"]


async def test_a_secret_in_the_input_never_reaches_an_executor_or_the_caller_with_no_executor(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    leaky = tool_ctx.model_copy(update={"call": tool_ctx.call.model_copy(update={"id": TOKEN})})
    for _ in range(2):  # the second run is where a wrongly kept proof would show
        assert TOKEN not in (await manager.run("tool.invoked", leaky)).model_dump_json()


async def test_an_equal_copy_is_no_replacement_the_validated_context_goes_on(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    seen: list[ToolInvokedContext] = []

    async def copy(ctx: ToolInvokedContext) -> ToolInvokedContext:
        seen.append(ctx)
        return ctx.model_copy()

    async def echo(ctx: ToolInvokedContext) -> ToolInvokedContext:  # as a remote's reply is
        seen.append(ctx)
        return ToolInvokedContext.model_validate_json(ctx.model_dump_json())

    async def thaw(ctx: ToolInvokedContext) -> ToolInvokedContext:  # equal, unvalidated, mutable
        seen.append(ctx)
        return ctx.model_copy(update={"entities": dict(ctx.entities)})

    for executor in (copy, echo, thaw):
        manager.register("tool.invoked.pre", executor)
    out = await manager.run("tool.invoked", tool_ctx)
    assert all(ctx is tool_ctx for ctx in seen) and out is tool_ctx
    assert out.entities is tool_ctx.entities  # the frozen mapping, not the thawed copy


async def test_a_copy_that_cannot_be_compared_is_validated_not_raised(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    class Odd:
        def __eq__(self, other: object) -> bool:
            raise ValueError("the truth value of an array is ambiguous")

        __hash__ = None  # type: ignore[assignment]

    async def odd(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={"call": Odd()})

    manager.register("tool.invoked.pre", odd)
    with pytest.raises(HookValidationError, match="call"):
        await manager.run("tool.invoked", tool_ctx)


async def test_a_copy_that_differs_only_by_a_secret_is_still_masked(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    seen: list[ToolInvokedContext] = []

    async def leak(ctx: ToolInvokedContext) -> ToolInvokedContext:
        call = ctx.call.model_copy(update={"arguments": {"q": f"weather in Paris {TOKEN}"}})
        return ctx.model_copy(update={"call": call})

    async def look(ctx: ToolInvokedContext) -> None:
        seen.append(ctx)

    manager.register("tool.invoked.pre", leak, priority=1)
    manager.register("tool.invoked.pre", look, priority=2)
    out = await manager.run("tool.invoked", tool_ctx)
    assert TOKEN not in seen[0].model_dump_json() and TOKEN not in out.model_dump_json()
    assert "weather in Paris" in out.call.arguments["q"]


async def test_an_operation_with_no_executor_still_shows_its_monitors_only_the_masked_input(
    manager: HookManager, tool_ctx: ToolInvokedContext
):
    leaky = tool_ctx.model_copy(update={"call": tool_ctx.call.model_copy(update={"id": TOKEN})})
    seen: list[tuple[str, str, RunningOperation | None]] = []

    async def watch(point: str, ctx: HookContext, proceed: Proceed) -> HookContext:
        seen.append((point, ctx.model_dump_json(), current_operation()))
        return await proceed()

    out = await manager.run("tool.invoked", leaky)  # no executor, no monitor: the short path
    handle = manager.add_monitor(watch, around="operation")
    watched = await manager.run("tool.invoked", leaky)
    handle()
    [(point, json, running)] = seen
    assert point == "tool.invoked" and TOKEN not in json
    assert running is not None and running.operation == "tool.invoked"  # RUNNING still set
    assert TOKEN not in out.model_dump_json() and out == watched
    assert current_operation() is None  # and reset after, on both paths


async def test_an_operation_with_no_executor_is_still_refused_past_the_nesting_limit(
    tool_ctx: ToolInvokedContext,
):
    manager = HookManager(max_depth=1)

    async def nest(ctx: ToolInvokedContext) -> None:
        await manager.run("tool.invoked", ctx)  # tool.invoked.post has no executor

    manager.register("tool.invoked.pre", nest)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
