"""Pins each line of DESIGN.md "Semantics" that the manager implements."""

from __future__ import annotations

import asyncio
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.domain import ToolResult
from harness.hooks import (
    BUILTIN_BODY_PRIORITY,
    HookAbort,
    HookManager,
    HookValidationError,
    UnknownHookPointError,
)
from harness.hooks.contexts import CommandInvokedContext


def set_result(content: str):
    return lambda ctx: ctx.model_copy(update={"result": ToolResult(content=content)})


# --- chain order -----------------------------------------------------------------------


async def test_executors_run_in_priority_order_lower_first(manager, recorder, tool_ctx):
    for label, priority in [("c", 30), ("a", 10), ("b", 20)]:
        manager.register("tool.invoked.pre", recorder.executor(label), priority=priority)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["a", "b", "c"]


async def test_equal_priority_keeps_registration_order(manager, recorder, tool_ctx):
    for label in ["first", "second", "third"]:
        manager.register("tool.invoked.post", recorder.executor(label), priority=5)
    manager.register("tool.invoked.post", recorder.executor("early"), priority=1)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["early", "first", "second", "third"]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=-5, max_value=5), min_size=1, max_size=12))
def test_order_is_priority_then_registration_for_any_priorities(priorities):
    manager = HookManager()
    seen: list[int] = []

    def make(i: int):
        async def run(ctx):
            seen.append(i)

        return run

    for i, priority in enumerate(priorities):
        manager.register("shutdown.pre", make(i), priority=priority)
    from harness.hooks.contexts import ShutdownContext

    asyncio.run(manager.run("shutdown", ShutdownContext()))
    assert seen == sorted(range(len(priorities)), key=lambda i: (priorities[i], i))


async def test_phases_run_pre_then_in_then_post(manager, recorder, tool_ctx):
    manager.register("tool.invoked.post", recorder.executor("post"))
    manager.register("tool.invoked.in", recorder.executor("in"))
    manager.register("tool.invoked.pre", recorder.executor("pre"))
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["pre", "in", "post"]


# --- pass-through and replacement ----------------------------------------------------------


async def test_none_passes_the_context_through_unchanged(manager, recorder, tool_ctx):
    manager.register("tool.invoked.pre", recorder.executor("a"))
    manager.register("tool.invoked.pre", recorder.executor("b"))
    out = await manager.run("tool.invoked", tool_ctx)
    assert out == tool_ctx
    assert [ctx for _, ctx in recorder.trace] == [tool_ctx, tool_ctx]


async def test_each_executor_receives_what_the_previous_returned(manager, recorder, tool_ctx):
    manager.register(
        "tool.invoked.pre",
        recorder.executor("tag", lambda c: c.model_copy(update={"entities": {"n": "1"}})),
    )
    manager.register("tool.invoked.pre", recorder.executor("reader"))
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.trace[1][1].entities == {"n": "1"}


async def test_pre_replacement_becomes_the_operations_input(manager, recorder, tool_ctx):
    def rewrite(ctx):
        call = ctx.call.model_copy(update={"arguments": {"q": "weather in Lyon"}})
        return ctx.model_copy(update={"call": call})

    manager.register("tool.invoked.pre", recorder.executor("rewrite", rewrite))
    manager.register(
        "tool.invoked.in",
        recorder.executor(
            "body",
            lambda c: c.model_copy(
                update={"result": ToolResult(content=f"ran {c.call.arguments['q']}")}
            ),
        ),
        priority=BUILTIN_BODY_PRIORITY,
    )
    out = await manager.run("tool.invoked", tool_ctx)
    assert recorder.trace[1][1].call.arguments == {"q": "weather in Lyon"}
    assert out.result == ToolResult(content="ran weather in Lyon")


async def test_pre_veto_cancels_the_operation_and_surfaces_as_typed_abort(
    manager, recorder, tool_ctx
):
    async def veto(ctx):
        raise HookAbort("shell is not allowed", refusal=True)

    manager.register("tool.invoked.pre", veto, priority=10)
    manager.register("tool.invoked.in", recorder.executor("body"))
    manager.register("tool.invoked.post", recorder.executor("post"))
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", tool_ctx)
    assert info.value.point == "tool.invoked.pre"
    assert info.value.executor.endswith("veto")
    assert info.value.refusal is True
    assert recorder.pop_trace() == []
    record = manager.aborts[-1]
    assert (record.point, record.reason, record.correlation_id) == (
        "tool.invoked.pre",
        "shell is not allowed",
        "corr-1",
    )


async def test_default_body_at_1000_runs_when_nothing_replaces_it(manager, recorder, tool_ctx):
    manager.register(
        "tool.invoked.in",
        recorder.executor("default", set_result("default")),
        priority=BUILTIN_BODY_PRIORITY,
    )
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="default")
    assert recorder.pop_trace() == ["default"]


async def test_lower_priority_body_that_sets_result_replaces_default(manager, recorder, tool_ctx):
    manager.register(
        "tool.invoked.in",
        recorder.executor("default", set_result("default")),
        priority=BUILTIN_BODY_PRIORITY,
    )
    manager.register(
        "tool.invoked.in",
        recorder.executor("custom", set_result("custom")),
        priority=BUILTIN_BODY_PRIORITY - 1,
    )
    manager.register(
        "tool.invoked.in",
        recorder.executor("later", set_result("later")),
        priority=BUILTIN_BODY_PRIORITY + 1,
    )
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="custom")
    assert recorder.pop_trace() == ["custom"]


async def test_in_executor_without_result_lets_the_default_body_run(manager, recorder, tool_ctx):
    manager.register(
        "tool.invoked.in",
        recorder.executor("default", set_result("default")),
        priority=BUILTIN_BODY_PRIORITY,
    )
    manager.register("tool.invoked.in", recorder.executor("observer"), priority=1)
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="default")
    assert recorder.pop_trace() == ["observer", "default"]


async def test_post_replacement_becomes_the_output(manager, recorder, tool_ctx):
    manager.register("tool.invoked.in", recorder.executor("body", set_result("raw")))
    manager.register("tool.invoked.post", recorder.executor("shorten", set_result("short")))
    manager.register("tool.invoked.post", recorder.executor("watch"), priority=900)
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="short")
    assert recorder.trace[-1][1].result == ToolResult(content="short")


async def test_executor_object_with_async_call_is_an_executor(manager, tool_ctx):
    class Tagger:
        name = "tagger"

        async def __call__(self, ctx):
            return ctx.model_copy(update={"entities": {"tagged": "yes"}})

    manager.register("tool.invoked.pre", Tagger())
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.entities == {"tagged": "yes"}


# --- bad executors and bad input -------------------------------------------------------


async def test_wrong_type_replacement_names_executor_and_point(manager, tool_ctx):
    async def confused(ctx):
        return CommandInvokedContext(command="model", sender="U1")

    manager.register("tool.invoked.pre", confused)
    with pytest.raises(HookValidationError) as info:
        await manager.run("tool.invoked", tool_ctx)
    message = str(info.value)
    assert "tool.invoked.pre" in message and "confused" in message
    assert "expected ToolInvokedContext" in message


async def test_replacement_that_fails_validation_is_rejected(manager, tool_ctx):
    async def sloppy(ctx):
        return ctx.model_copy(update={"attempt": 0, "result": {"is_error": "maybe"}})

    manager.register("tool.invoked.post", sloppy)
    with pytest.raises(HookValidationError) as info:
        await manager.run("tool.invoked", tool_ctx)
    assert "attempt" in info.value.detail and "result.is_error" in info.value.detail


async def test_non_context_return_value_is_rejected(manager, tool_ctx):
    async def returns_dict(ctx):
        return {"result": "x"}

    manager.register("tool.invoked.in", returns_dict)
    with pytest.raises(HookValidationError, match="got dict"):
        await manager.run("tool.invoked", tool_ctx)


async def test_run_refuses_a_context_of_another_operation(manager, tool_ctx):
    with pytest.raises(HookValidationError, match="LlmInvokedContext"):
        await manager.run("llm.invoked", tool_ctx)


def test_unknown_point_fails_at_registration_not_dispatch(manager, recorder):
    with pytest.raises(UnknownHookPointError):
        manager.register("tool.invoked.around", recorder.executor("x"))
    assert all(not manager.registrations(p) for p in ("tool.invoked.pre", "tool.invoked.in"))


def test_sync_callable_is_refused_at_registration(manager):
    def not_async(ctx):
        return None

    with pytest.raises(TypeError, match="async callable"):
        manager.register("tool.invoked.pre", not_async)  # type: ignore[arg-type]


async def test_executor_exception_propagates_with_a_note_naming_it(manager, tool_ctx):
    async def broken(ctx):
        raise RuntimeError("disk full")

    manager.register("tool.invoked.in", broken)
    with pytest.raises(RuntimeError, match="disk full") as info:
        await manager.run("tool.invoked", tool_ctx)
    assert any("broken" in note and "tool.invoked.in" in note for note in info.value.__notes__)


async def test_unregister_removes_the_executor(manager, recorder, tool_ctx):
    handle = manager.register("tool.invoked.pre", recorder.executor("gone"))
    manager.register("tool.invoked.pre", recorder.executor("stays"))
    manager.unregister(handle)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["stays"]
    with pytest.raises(ValueError, match="not registered"):
        manager.unregister(handle)


async def test_registering_during_a_run_does_not_change_that_run(manager, recorder, tool_ctx):
    async def adder(ctx):
        manager.register("tool.invoked.pre", recorder.executor("added"), priority=99)

    manager.register("tool.invoked.pre", adder, priority=1)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == []
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["added"]


# --- abandon -------------------------------------------------------------------------------


class SpanOpener:
    """A pre executor that opens something and closes it on post or on abandon."""

    def __init__(self, name: str = "span") -> None:
        self.name = name
        self.open = 0
        self.abandoned: list[tuple[str, str, BaseException]] = []

    async def __call__(self, ctx):
        self.open += 1

    def abandon(self, point, ctx, error):
        self.open -= 1
        self.abandoned.append((point, ctx.correlation_id, error))


class BrokenObserver:
    name = "broken-observer"

    async def __call__(self, ctx):
        return None

    def abandon(self, point, ctx, error):
        raise RuntimeError("observer exploded")


async def test_abandon_runs_when_the_body_raises_and_observer_failure_is_suppressed(
    manager, tool_ctx, caplog
):
    span, broken, late = SpanOpener(), BrokenObserver(), SpanOpener("late")
    manager.register("tool.invoked.pre", span, priority=1)
    manager.register("tool.invoked.pre", broken, priority=2)
    manager.register("tool.invoked.pre", late, priority=3)
    failure = ValueError("tool crashed")

    async def body(ctx):
        raise failure

    manager.register("tool.invoked.in", body)
    with caplog.at_level(logging.ERROR), pytest.raises(ValueError, match="tool crashed"):
        await manager.run("tool.invoked", tool_ctx)
    assert span.open == 0 and late.open == 0
    assert span.abandoned == [("tool.invoked.pre", "corr-1", failure)]
    assert "broken-observer" in caplog.text and "suppressed" in caplog.text


async def test_abandon_runs_when_the_body_is_cancelled(manager, tool_ctx):
    span = SpanOpener()
    manager.register("tool.invoked.pre", span)
    started = asyncio.Event()

    async def slow_body(ctx):
        started.set()
        await asyncio.sleep(60)

    manager.register("tool.invoked.in", slow_body)
    task = asyncio.create_task(manager.run("tool.invoked", tool_ctx))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert span.open == 0
    assert isinstance(span.abandoned[0][2], asyncio.CancelledError)


async def test_abandon_is_not_called_on_success(manager, tool_ctx):
    span = SpanOpener()
    manager.register("tool.invoked.pre", span)
    await manager.run("tool.invoked", tool_ctx)
    assert span.abandoned == []


async def test_abandon_runs_when_a_later_pre_executor_aborts(manager, tool_ctx):
    span = SpanOpener()
    manager.register("tool.invoked.pre", span, priority=1)

    async def veto(ctx):
        raise HookAbort("no")

    manager.register("tool.invoked.pre", veto, priority=2)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    assert span.open == 0 and len(span.abandoned) == 1


def test_abandon_can_be_called_directly_and_skips_plain_executors(manager, tool_ctx, recorder):
    span = SpanOpener()
    manager.register("tool.invoked.pre", recorder.executor("plain"))
    manager.register("tool.invoked.pre", span)
    span.open = 1
    manager.abandon("tool.invoked.pre", tool_ctx, RuntimeError("x"))
    assert span.open == 0


def test_an_executor_bound_to_another_point_is_refused(manager):
    class Remote:
        point = "tool.invoked.pre"

        async def __call__(self, ctx):
            return None

    manager.register("tool.invoked.pre", Remote())
    with pytest.raises(ValueError, match=r"serves tool\.invoked\.pre, not tool\.invoked\.post"):
        manager.register("tool.invoked.post", Remote())


async def test_abort_reason_is_redacted_before_it_travels(manager, tool_ctx):
    token = "xoxb-123456789012-abcdefghijkl"

    async def leaky_veto(ctx):
        raise HookAbort(f"token {token} is not allowed here", refusal=True)

    manager.register("tool.invoked.pre", leaky_veto)
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", tool_ctx)
    assert token not in str(info.value) and token not in info.value.reason
    assert token not in repr(info.value.args)
    assert token not in manager.aborts[-1].reason
