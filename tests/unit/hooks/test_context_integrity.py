"""Context integrity: identity is not an executor's to change, and contexts are deeply immutable."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from harness.domain import ChannelMessage, FrozenDict, TaskRef, ToolCall, freeze
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import HookManager, HookValidationError, JsonRpcExecutor
from harness.hooks.chain import IDENTITY_FIELDS
from harness.hooks.contexts import ChannelSentContext, ToolInvokedContext

CHANGES = {
    "task": TaskRef(task_id="someone-elses-task"),
    "correlation_id": "corr-forged",
    "attempt": 7,
    "lost_workers": 3,
    "idempotency_key": "T1:op-forged",
}


def test_every_identity_field_is_covered():
    assert set(CHANGES) == set(IDENTITY_FIELDS)


@pytest.mark.parametrize("field", sorted(CHANGES), ids=sorted(CHANGES))
@pytest.mark.parametrize("phase", ["pre", "in", "post"])
async def test_a_local_replacement_changing_identity_names_the_field_and_executor(
    manager: HookManager, tool_ctx, field, phase
):
    async def impostor(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={field: CHANGES[field]})

    manager.register(f"tool.invoked.{phase}", impostor, priority=1)
    with pytest.raises(HookValidationError) as info:
        await manager.run("tool.invoked", tool_ctx)
    assert info.value.detail.startswith(f"{field} is the operation's identity")
    assert "impostor" in info.value.executor
    assert info.value.point == f"tool.invoked.{phase}"
    assert info.value.retryable is False


async def test_a_replacement_keeping_identity_is_still_accepted(manager, tool_ctx):
    async def rewrite(ctx: ToolInvokedContext) -> ToolInvokedContext:
        # Equal but not the same objects: a remote reply rebuilds everything.
        same = TaskRef.model_validate(ctx.task.model_dump()) if ctx.task else None
        return ctx.model_copy(
            update={
                "task": same,
                "call": ctx.call.model_copy(update={"arguments": {"q": "weather in Lyon"}}),
            }
        )

    manager.register("tool.invoked.pre", rewrite)
    out = await manager.run("tool.invoked", tool_ctx)
    assert out.call.arguments == {"q": "weather in Lyon"}


@pytest.fixture
async def forging_server() -> AsyncIterator[str]:
    def forge(ctx: ToolInvokedContext) -> ToolInvokedContext:
        return ctx.model_copy(update={"task": TaskRef(task_id="task/T9/C9")})

    runner = web.AppRunner(jsonrpc_app({"tool.invoked.pre": forge}))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/"
    await runner.cleanup()


async def test_a_remote_reply_changing_the_task_is_refused(manager, tool_ctx, forging_server):
    remote = JsonRpcExecutor(forging_server, point="tool.invoked.pre", name="remote-forger")
    manager.register("tool.invoked.pre", remote)
    try:
        with pytest.raises(HookValidationError) as info:
            await manager.run("tool.invoked", tool_ctx)
    finally:
        await manager.aclose()
    assert info.value.executor == "remote-forger"
    assert info.value.detail.startswith("task is the operation's identity")


def nested_ctx() -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1"),
        entities={"ticket": "T-1"},
        call=ToolCall(
            id="c1",
            name="search",
            arguments={"q": "x", "tags": ["a", "b"], "opts": {"deep": [{"k": 1}]}},
        ),
    )


async def test_an_in_place_change_reaches_neither_the_caller_nor_the_next_executor(manager):
    ctx = nested_ctx()
    attempts: list[str] = []
    seen: list[ToolInvokedContext] = []

    async def vandal(c: ToolInvokedContext) -> None:
        for name, change in {
            "entities[]=": lambda: c.entities.__setitem__("ticket", "T-666"),  # type: ignore[index]
            "arguments.update": lambda: c.call.arguments.update(q="y"),  # type: ignore[attr-defined]
            "list.append": lambda: c.call.arguments["tags"].append("c"),
            "nested dict": lambda: c.call.arguments["opts"]["deep"][0].pop("k"),
            "del": lambda: c.call.arguments.__delitem__("q"),  # type: ignore[attr-defined]
            "setdefault": lambda: c.call.arguments.setdefault("new", 1),  # type: ignore[attr-defined]
            "|=": lambda: c.entities.__ior__({"x": "y"}),  # type: ignore[attr-defined]
        }.items():
            try:
                change()
            except (TypeError, AttributeError):
                attempts.append(name)

    async def after(c: ToolInvokedContext) -> None:
        seen.append(c)

    manager.register("tool.invoked.pre", vandal, priority=1)
    manager.register("tool.invoked.pre", after, priority=2)
    await manager.run("tool.invoked", ctx)
    assert len(attempts) == 7  # every change was refused
    assert ctx == nested_ctx()  # the caller's context is as it was
    assert seen[0].call.arguments == {"q": "x", "tags": ("a", "b"), "opts": {"deep": ({"k": 1},)}}
    assert seen[0].entities == {"ticket": "T-1"}


async def test_a_raising_in_place_change_fails_the_operation_naming_the_executor(manager):
    async def mutate(c: ToolInvokedContext) -> None:
        c.entities["ticket"] = "T-666"  # type: ignore[index]

    manager.register("tool.invoked.pre", mutate)
    ctx = nested_ctx()
    with pytest.raises(TypeError, match="read-only") as info:
        await manager.run("tool.invoked", ctx)
    assert any("mutate" in note for note in info.value.__notes__)
    assert ctx.entities == {"ticket": "T-1"}


def test_replacements_built_with_plain_dicts_are_frozen_by_validation():
    msg = ChannelMessage(channel="C1", blocks=({"type": "section", "fields": [1, 2]},))
    ctx = ChannelSentContext(message=msg)
    assert type(ctx.message.blocks[0]) is FrozenDict
    assert ctx.message.blocks[0]["fields"] == (1, 2)
    # Defaults are frozen too (a default_factory=dict would be shared and writable).
    with pytest.raises(TypeError):
        ChannelSentContext(message=msg).entities["k"] = "v"  # type: ignore[index]


def test_a_frozen_dict_is_still_a_dict_to_every_encoder_and_copier():
    value = freeze({"a": [1, {"b": 2}], "c": {"d"}})
    assert isinstance(value, dict) and value == {"a": (1, {"b": 2}), "c": frozenset({"d"})}
    assert json.loads(json.dumps({"a": value["a"]})) == {"a": [1, {"b": 2}]}
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) is value and copy.copy(value) is value
    assert freeze(value) is value  # already frozen: no copy
    ctx = nested_ctx()
    assert ToolInvokedContext.model_validate_json(ctx.model_dump_json()) == ctx
    assert hash(FrozenDict({"a": 1})) == hash(FrozenDict({"a": 1}))
