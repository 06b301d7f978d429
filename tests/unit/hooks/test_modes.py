"""Validate-after-mutate and dry run (issue 6): validators run last, audit mode applies nothing."""

from __future__ import annotations

import pytest

from harness.domain import ToolResult
from harness.hooks import HookAbort, HookManager, HookValidationError
from harness.hooks.contexts import ToolInvokedContext


def rewrite_query(value: str):
    async def rewrite(ctx: ToolInvokedContext) -> ToolInvokedContext:
        call = ctx.call.model_copy(update={"arguments": {"q": value}})
        return ctx.model_copy(update={"call": call})

    rewrite.__qualname__ = f"rewrite_{value}"
    return rewrite


@pytest.mark.parametrize("rewriter_priority", [1, 500, 999], ids=["lower", "equal", "higher"])
async def test_a_rewriter_registered_after_a_validator_cannot_change_what_it_approved(
    manager: HookManager, tool_ctx: ToolInvokedContext, rewriter_priority: int
):
    approved: list[str] = []

    async def only_weather(ctx: ToolInvokedContext) -> None:
        if "weather" not in ctx.call.arguments["q"]:
            raise HookAbort("only weather queries", refusal=True)
        approved.append(ctx.call.arguments["q"])

    seen_by_body: list[str] = []

    async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
        seen_by_body.append(ctx.call.arguments["q"])
        return ctx.model_copy(update={"result": ToolResult(content="ok")})

    manager.register("tool.invoked.pre", only_weather, priority=500, mode="validator")
    manager.register("tool.invoked.pre", rewrite_query("rm -rf /"), priority=rewriter_priority)
    manager.register("tool.invoked.in", body)

    with pytest.raises(HookAbort, match="only weather queries"):
        await manager.run("tool.invoked", tool_ctx)
    assert approved == [] and seen_by_body == []

    # A harmless rewrite passes, and the validator saw the rewritten input, not the original.
    manager2 = HookManager()
    manager2.register("tool.invoked.pre", only_weather, priority=1, mode="validator")
    manager2.register("tool.invoked.pre", rewrite_query("weather in Lyon"), priority=900)
    manager2.register("tool.invoked.in", body)
    await manager2.run("tool.invoked", tool_ctx)
    assert approved == ["weather in Lyon"] and seen_by_body == ["weather in Lyon"]


async def test_validators_run_last_in_their_own_priority_order(
    manager: HookManager, recorder, tool_ctx
):
    manager.register("tool.invoked.pre", recorder.executor("v2"), priority=2, mode="validator")
    manager.register("tool.invoked.pre", recorder.executor("v1"), priority=1, mode="validator")
    manager.register("tool.invoked.pre", recorder.executor("late"), priority=2000)
    manager.register("tool.invoked.pre", recorder.executor("early"), priority=0)
    await manager.run("tool.invoked", tool_ctx)
    assert recorder.pop_trace() == ["early", "late", "v1", "v2"]
    assert [r.mode for r in manager.registrations("tool.invoked.pre")] == [
        "normal",
        "normal",
        "validator",
        "validator",
    ]


async def test_a_validator_returning_a_replacement_is_an_error_naming_it(manager, tool_ctx):
    async def sneaky(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={"correlation_id": "changed"})

    manager.register("tool.invoked.post", sneaky, mode="validator")
    with pytest.raises(HookValidationError, match=r"sneaky.*may only pass"):
        await manager.run("tool.invoked", tool_ctx)


def test_a_validator_cannot_sit_on_an_in_point(manager, recorder):
    with pytest.raises(ValueError, match="validate the output at the post point"):
        manager.register("tool.invoked.in", recorder.executor("v"), mode="validator")
    with pytest.raises(ValueError, match="unknown mode"):
        manager.register("tool.invoked.pre", recorder.executor("v"), mode="shadow")  # type: ignore[arg-type]


async def test_an_audit_mode_veto_is_recorded_and_not_applied(manager, tool_ctx):
    async def deny_all(ctx: ToolInvokedContext) -> None:
        raise HookAbort("search is not allowed", refusal=True)

    async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={"result": ToolResult(content="ran")})

    manager.register("tool.invoked.pre", deny_all, mode="audit")
    manager.register("tool.invoked.in", body)
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="ran")
    assert list(manager.aborts) == []
    (record,) = manager.audit.last()
    assert record.kind == "audit_veto"
    assert record.point == "tool.invoked.pre"
    assert record.executor.endswith("deny_all")
    assert record.reason == "would refuse: search is not allowed"
    assert (record.correlation_id, record.task_id) == ("corr-1", "T1")


async def test_an_audit_mode_rewrite_is_recorded_and_not_applied(manager, tool_ctx):
    manager.register("tool.invoked.pre", rewrite_query("elsewhere"), mode="audit")
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.call.arguments == {"q": "weather in Paris"}
    (record,) = manager.audit.last()
    assert (record.kind, record.reason) == ("audit_rewrite", "would rewrite call")


async def test_audited_executors_see_the_rewrites_audited_before_them(manager, tool_ctx):
    """The audit lists every decision: a veto of the call another executor would rewrite."""
    seen: list[str] = []

    async def no_elsewhere(ctx: ToolInvokedContext) -> None:
        seen.append(ctx.call.arguments["q"])
        if ctx.call.arguments["q"] == "elsewhere":
            raise HookAbort("elsewhere is out of bounds", refusal=True)

    async def body(ctx: ToolInvokedContext) -> ToolInvokedContext:
        seen.append(f"body: {ctx.call.arguments['q']}")
        return ctx.model_copy(update={"result": ToolResult(content="ran")})

    manager.register("tool.invoked.pre", rewrite_query("elsewhere"), priority=10, mode="audit")
    manager.register("tool.invoked.pre", no_elsewhere, priority=20, mode="audit")
    manager.register("tool.invoked.in", body)
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.result == ToolResult(content="ran") and list(manager.aborts) == []
    assert seen == ["elsewhere", "body: weather in Paris"]  # the live call is untouched
    rewrite, veto = manager.audit.last(2)
    assert (rewrite.kind, rewrite.reason) == ("audit_rewrite", "would rewrite call")
    assert (veto.kind, veto.reason) == ("audit_veto", "would refuse: elsewhere is out of bounds")
    # The next operation starts from its own live context, not the last one's shadow.
    seen.clear()
    await manager.run("tool.invoked", tool_ctx.model_copy(update={"correlation_id": "corr-2"}))
    assert seen == ["elsewhere", "body: weather in Paris"]


async def test_an_audited_ask_is_listed_as_one(manager, tool_ctx):
    async def ask(ctx: ToolInvokedContext) -> None:
        raise HookAbort("search needs a person's approval", ask=True)

    manager.register("tool.invoked.pre", ask, mode="audit")
    await manager.run("tool.invoked", tool_ctx)
    (record,) = manager.audit.last()
    assert record.reason == "would ask: search needs a person's approval"


async def test_an_audit_mode_failure_is_recorded_and_passes_through(manager, tool_ctx):
    async def broken(ctx: ToolInvokedContext) -> None:
        raise RuntimeError("policy bug")

    manager.register("tool.invoked.pre", broken, mode="audit")
    await manager.run("tool.invoked", tool_ctx)
    (record,) = manager.audit.last()
    assert (record.kind, record.reason) == ("audit_failure", "RuntimeError: policy bug")


async def test_wrapped_executors_still_hear_abandon(manager, tool_ctx):
    heard: list[str] = []

    class Opener:
        async def __call__(self, ctx):
            return None

        def abandon(self, point, ctx, error):
            heard.append(point)

    async def failing_body(ctx):
        raise RuntimeError("body broke")

    manager.register("tool.invoked.pre", Opener(), mode="validator")
    manager.register("tool.invoked.pre", Opener(), mode="audit")
    manager.register("tool.invoked.in", failing_body)
    with pytest.raises(RuntimeError):
        await manager.run("tool.invoked", tool_ctx)
    assert heard == ["tool.invoked.pre", "tool.invoked.pre"]


async def test_aborts_and_refusals_are_audited_with_task_and_correlation(manager, tool_ctx):
    async def veto(ctx):
        raise HookAbort("no token=abc123secretvalue here", refusal=True)

    manager.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    (record,) = manager.audit.last()
    assert record.kind == "refusal"
    assert "abc123secretvalue" not in record.reason
    assert (record.correlation_id, record.task_id) == ("corr-1", "T1")
