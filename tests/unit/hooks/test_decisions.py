"""Decisions (issue 15, point 4): how one executor call is classified, and the executor scope
of the monitoring seam that watches each call (composed only when installed)."""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookTimeoutError, HookTransportError
from harness.hooks.chain import run_chain
from harness.hooks.config.wrappers import ConfiguredExecutor
from harness.hooks.decisions import decision_of, note_passed_over, passed_over, reason_of
from harness.hooks.monitor import chain_runner


def call_watcher(seen: list[tuple[str, str, str, str]]):
    async def monitor(call, ctx, proceed, /):
        try:
            out = await proceed()
        except BaseException as error:
            seen.append((call.point, call.name, call.kind, decision_of(None, error)))
            raise
        passed = passed_over() if out is None else None
        seen.append((call.point, call.name, call.kind, decision_of(out, None, passed)))
        return out

    return monitor


async def set_result(ctx):
    return ctx.model_copy(update={"result": ToolResult(content="ok")})


async def passthrough(ctx):
    return None


@pytest.mark.parametrize(
    ("out", "error", "passed", "decision"),
    [
        (None, None, None, "pass"),
        ("replacement", None, None, "rewrite"),
        (None, None, RuntimeError("down"), "failed-open"),
        (None, HookAbort("no", refusal=True), None, "veto"),
        (None, HookAbort("broken"), None, "abort"),
        (None, HookAbort("may I?", ask=True), None, "ask"),
        (None, HookTimeoutError(point="p", scope="executor", seconds=1), None, "timeout"),
        (None, TimeoutError(), None, "timeout"),
        (None, HookTransportError(point="p", endpoint="e", cause="timeout: 5s"), None, "timeout"),
        (None, HookTransportError(point="p", endpoint="e", cause="HTTP 500"), None, "error"),
        (None, RuntimeError("bug"), None, "error"),
        (None, asyncio.CancelledError(), None, "error"),
    ],
    ids=[
        "pass",
        "rewrite",
        "failed-open",
        "veto",
        "abort",
        "ask",
        "own-timeout",
        "timeout-error",
        "remote-timeout",
        "transport-error",
        "error",
        "cancelled",
    ],
)
def test_each_outcome_has_its_decision(out, error, passed, decision):
    assert decision_of(out, error, passed) == decision


def test_the_reason_is_the_abort_s_or_the_error_s():
    assert reason_of(None) == ""
    assert reason_of(HookAbort("not on Fridays", refusal=True)) == "not on Fridays"
    assert reason_of(ValueError("bad input")) == "ValueError: bad input"


def test_nothing_watched_runs_the_bare_chain_loop():
    assert chain_runner(None) is run_chain
    assert chain_runner(None, None) is run_chain


async def test_an_executor_monitor_sees_every_call_with_its_name_point_and_kind(manager, tool_ctx):
    seen: list[tuple[str, str, str, str]] = []
    manager.register("tool.invoked.pre", passthrough)
    manager.register("tool.invoked.in", set_result)
    handle = manager.add_monitor(call_watcher(seen), around="executor")
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result.content == "ok"
    assert [(p, d) for p, _, _, d in seen] == [
        ("tool.invoked.pre", "pass"),
        ("tool.invoked.in", "rewrite"),
    ]
    assert seen[0][1].endswith("passthrough") and seen[0][2] == "local"

    handle()  # removed: the chains run bare again and nothing more is seen
    seen.clear()
    await manager.run("tool.invoked", tool_ctx)
    assert seen == [] and manager.monitors("executor") == ()


async def test_a_chain_changed_after_watching_began_is_watched_as_it_is_now(manager, tool_ctx):
    seen: list[tuple[str, str, str, str]] = []
    manager.add_monitor(call_watcher(seen), around="executor")
    first = manager.register("tool.invoked.pre", passthrough)
    await manager.run("tool.invoked", tool_ctx)
    manager.unregister(first)

    async def veto(ctx):
        raise HookAbort("no searching", refusal=True)

    manager.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort) as caught:
        await manager.run("tool.invoked", tool_ctx)
    assert [d for *_, d in seen] == ["pass", "veto"]
    assert caught.value.executor.endswith("veto")  # the chain loop still names the executor


async def test_two_executor_monitors_nest_newest_outermost_and_both_see_failed_open(
    manager, tool_ctx
):
    order: list[str] = []

    def labelled(label, seen):
        inner = call_watcher(seen)

        async def monitor(call, ctx, proceed, /):
            order.append(f"{label}>")
            try:
                return await inner(call, ctx, proceed)
            finally:
                order.append(f"<{label}")

        return monitor

    async def broken(ctx):
        raise RuntimeError("backend down")

    wrapped = ConfiguredExecutor(
        broken,
        point="tool.invoked.pre",
        name="flaky",
        matchers=[],
        timeout=None,
        on_failure="ignore",
        audit=manager.audit,
    )
    manager.register("tool.invoked.pre", wrapped)
    a, b = [], []
    manager.add_monitor(labelled("a", a), around="executor")
    manager.add_monitor(labelled("b", b), around="executor")
    await manager.run("tool.invoked", tool_ctx)
    assert order == ["b>", "a>", "<a", "<b"]
    assert a == b == [("tool.invoked.pre", "flaky", "local", "failed-open")]


async def test_a_pass_over_inside_a_nested_operation_is_not_the_outer_call_s(manager, tool_ctx):
    seen: list[tuple[str, str, str, str]] = []

    async def broken(ctx):
        raise RuntimeError("backend down")

    flaky = ConfiguredExecutor(
        broken,
        point="persistence.write.pre",
        name="flaky",
        matchers=[],
        timeout=None,
        on_failure="ignore",
        audit=manager.audit,
    )
    manager.register("persistence.write.pre", flaky)

    async def writes(ctx):
        from harness.hooks.contexts import PersistenceWriteContext

        await manager.run(
            "persistence.write", PersistenceWriteContext(task=ctx.task, key="k", content="c")
        )
        return None

    manager.register("tool.invoked.pre", writes, priority=1)
    manager.add_monitor(call_watcher(seen), around="executor")
    await manager.run("tool.invoked", tool_ctx)
    assert [(p, d) for p, _, _, d in seen] == [
        ("persistence.write.pre", "failed-open"),
        ("tool.invoked.pre", "pass"),
    ]


async def test_a_pass_over_noted_while_nothing_watched_is_not_read_later(manager, tool_ctx):
    note_passed_over(RuntimeError("long ago"))  # as an unwatched ConfiguredExecutor leaves it
    seen: list[tuple[str, str, str, str]] = []
    manager.register("tool.invoked.pre", passthrough)
    manager.add_monitor(call_watcher(seen), around="executor")
    await manager.run("tool.invoked", tool_ctx)
    assert [d for *_, d in seen] == ["pass"]


async def test_a_monitor_with_aclose_is_closed_with_the_manager(manager):
    closed: list[str] = []

    class Holding:
        async def __call__(self, call, ctx, proceed, /):
            return await proceed()

        async def aclose(self):
            closed.append("closed")

    manager.add_monitor(Holding(), around="executor")
    await manager.aclose()
    assert closed == ["closed"]


async def test_parallel_validators_are_each_watched_with_their_own_decision(manager, tool_ctx):
    seen: list[tuple[str, str, str, str]] = []

    async def allows(ctx):
        return None

    async def forbids(ctx):
        raise HookAbort("not today", refusal=True)

    manager.register("tool.invoked.pre", allows, mode="validator", priority=1)
    manager.register("tool.invoked.pre", forbids, mode="validator", priority=2)
    manager.add_monitor(call_watcher(seen), around="executor")
    with pytest.raises(HookAbort, match="not today"):
        await manager.run("tool.invoked", tool_ctx)
    assert sorted((name.rsplit(".", 1)[-1], d) for _, name, _, d in seen) == [
        ("allows", "pass"),
        ("forbids", "veto"),
    ]


async def test_an_observer_is_seen_as_its_hand_off_off_the_critical_path(manager, tool_ctx):
    seen: list[tuple[str, str, str, str]] = []
    ran: list[str] = []

    async def watches(ctx):
        await asyncio.sleep(0.05)
        ran.append("observed")
        return ctx.model_copy(update={"attempt": ctx.attempt})  # ignored: an observer

    manager.register("tool.invoked.post", watches, mode="observer")
    manager.add_monitor(call_watcher(seen), around="executor")
    await manager.run("tool.invoked", tool_ctx)
    assert [(p, d) for p, _, _, d in seen] == [("tool.invoked.post", "pass")]
    assert ran == []  # the operation did not wait for it
    assert await manager.observers.drain(5) and ran == ["observed"]
