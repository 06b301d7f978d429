"""Registration checks what it can, and re-entry is bounded (issue 10, points 4 and 5)."""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from harness.hooks import HookAbort, HookManager, HookValidationError
from harness.hooks.contexts import HookContext, ToolInvokedContext


class AsyncAbandon:
    name = "async-abandon"

    async def __call__(self, ctx: HookContext) -> None:
        return None

    async def abandon(self, point: str, ctx: HookContext, error: BaseException) -> None:
        return None


def test_an_async_abandon_is_refused_at_registration_naming_the_executor(manager):
    with pytest.raises(TypeError, match=r"async-abandon for tool\.invoked\.pre: abandon must be"):
        manager.register("tool.invoked.pre", AsyncAbandon())


async def two(ctx, extra):
    return None


async def none():
    return None


async def keyword_only(*, ctx):
    return None


@pytest.mark.parametrize("executor", [two, none, keyword_only], ids=["two", "none", "kw-only"])
def test_an_executor_that_cannot_take_the_context_is_refused_naming_it(manager, executor):
    with pytest.raises(TypeError, match=rf"{executor.__name__} for tool\.invoked\.in must take"):
        manager.register("tool.invoked.in", executor)


async def test_flexible_signatures_are_accepted(manager, tool_ctx):
    async def defaults(ctx, extra=None):
        return None

    async def star(*args):
        return None

    manager.register("tool.invoked.pre", defaults)
    manager.register("tool.invoked.pre", star)
    assert await manager.run("tool.invoked", tool_ctx) == tool_ctx


async def test_a_coroutine_returned_unawaited_is_an_error_at_the_call(manager, tool_ctx, recwarn):
    async def replace(ctx):
        return ctx

    async def forgetful(ctx):
        return replace(ctx)  # type: ignore[return-value]  # the mistake under test

    manager.register("tool.invoked.pre", forgetful)
    with pytest.raises(HookValidationError, match="coroutine without awaiting it") as info:
        await manager.run("tool.invoked", tool_ctx)
    assert "forgetful" in info.value.executor
    gc.collect()
    assert not [w for w in recwarn if "never awaited" in str(w.message)]


async def test_a_sync_abandon_returning_a_coroutine_is_logged(manager, tool_ctx, caplog):
    class Sneaky:
        name = "sneaky"

        async def __call__(self, ctx):
            return None

        def abandon(self, point, ctx, error):
            return asyncio.sleep(0)  # a coroutine nobody will await

    async def fail(ctx):
        raise RuntimeError("body failed")

    manager.register("tool.invoked.pre", Sneaky())
    manager.register("tool.invoked.in", fail)
    with caplog.at_level(logging.ERROR), pytest.raises(RuntimeError):
        await manager.run("tool.invoked", tool_ctx)
    assert any(
        "sneaky" in r.getMessage() and "returned a coroutine" in r.getMessage()
        for r in caplog.records
    )


async def test_an_executor_re_entering_its_own_operation_is_aborted_the_chain_logged(
    tool_ctx, caplog
):
    manager = HookManager(max_depth=5)
    calls: list[int] = []

    async def recurse(ctx: ToolInvokedContext) -> None:
        calls.append(1)
        await manager.run("tool.invoked", ctx)

    manager.register("tool.invoked.pre", recurse)
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", tool_ctx)
    assert len(calls) == 5
    assert "nested 6 deep (the most is 5)" in info.value.reason
    # The reason may reach a thread: the chain of operations is the log's (issue 25).
    assert "tool.invoked" not in info.value.reason
    assert any(r.getMessage().count("tool.invoked") == 6 for r in caplog.records)
    assert not info.value.refusal
    assert [r.kind for r in manager.audit.last(1)] == ["abort"]


async def test_mutual_re_entry_through_spawned_tasks_is_bounded_too(manager, tool_ctx, caplog):
    async def tool_calls_llm(ctx):
        from harness.domain import Message
        from harness.hooks.contexts import LlmInvokedContext

        llm = LlmInvokedContext(model="m", messages=(Message(role="user", content="x"),))
        await asyncio.create_task(manager.run("llm.invoked", llm))

    async def llm_calls_tool(ctx):
        await manager.run("tool.invoked", tool_ctx)

    manager.register("tool.invoked.pre", tool_calls_llm)
    manager.register("llm.invoked.pre", llm_calls_tool)
    with pytest.raises(HookAbort, match="operations nested 17 deep"):
        await manager.run("tool.invoked", tool_ctx)
    chain = "tool.invoked -> llm.invoked -> tool.invoked"
    assert any(chain in r.getMessage() for r in caplog.records)


async def test_depth_is_per_task_not_global(manager, tool_ctx):
    async def slow(ctx):
        await asyncio.sleep(0.01)

    manager.register("tool.invoked.pre", slow)
    # Fifty operations side by side are not nested: none is aborted.
    results = await asyncio.gather(*(manager.run("tool.invoked", tool_ctx) for _ in range(50)))
    assert len(results) == 50


def test_max_depth_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        HookManager(max_depth=0)
