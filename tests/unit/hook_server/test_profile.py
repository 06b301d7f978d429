"""The conformance profile in both Python server helpers, and their schema-version check
(issue 15): a probe is answered by the profile at every point, never by the policy; a
request naming another schema version is refused, one naming none is served."""

from __future__ import annotations

import json

import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, CallToolRequestParams

from harness.domain import ToolCall
from harness.hook_server.jsonrpc import JsonRpcDispatcher
from harness.hook_server.mcp import HookTools
from harness.hook_server.profile import answer_probe, is_probe
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.wire import ABORT, METHOD_NOT_FOUND, SCHEMA_VERSION, encode_request


def probe(name: str, correlation: str = "conformance-t", **arguments: object) -> ToolInvokedContext:
    return ToolInvokedContext(
        correlation_id=correlation, call=ToolCall(id="c", name=name, arguments=arguments)
    )


def policy(ctx: ToolInvokedContext) -> None:
    raise HookAbort("the policy ran", refusal=True)


async def rpc(dispatcher, method, ctx, schema_version=None):
    body = encode_request(1, method, {"context": ctx.model_dump(mode="json")})
    return json.loads(await dispatcher.dispatch(body, schema_version=schema_version))


async def test_the_profile_behaviours():
    assert await answer_probe(probe("conformance.pass")) is None
    out = await answer_probe(probe("conformance.rewrite", keep=1))
    assert out.call.arguments == {"rewritten": True} and out.call.name == "conformance.rewrite"
    with pytest.raises(HookAbort) as veto:
        await answer_probe(probe("conformance.veto"))
    assert veto.value.refusal and veto.value.reason == "conformance veto"
    with pytest.raises(HookAbort) as abort:
        await answer_probe(probe("conformance.abort"))
    assert not abort.value.refusal
    with pytest.raises(HookAbort) as ask:
        await answer_probe(probe("conformance.ask", seconds=120))
    assert ask.value.ask and ask.value.refusal and ask.value.timeout_seconds == 120
    large = await answer_probe(probe("conformance.large", bytes=1000))
    assert large.call.arguments == {"padding": "x" * 1000}
    assert await answer_probe(probe("conformance.future-behaviour")) is None
    assert is_probe({"correlation_id": "conformance-1"}) and not is_probe({"correlation_id": "c"})
    assert not is_probe("conformance-1") and not is_probe(probe("x", correlation="corr"))


async def test_jsonrpc_answers_probes_by_the_profile_at_any_point_and_real_calls_by_policy():
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": policy})
    vetoed = await rpc(dispatcher, "tool.invoked.pre", probe("conformance.pass"))
    assert vetoed["result"] is None  # the policy did not run on a probe
    real = await rpc(dispatcher, "tool.invoked.pre", probe("conformance.pass", correlation="c"))
    assert real["error"]["code"] == ABORT  # ... and does on a real call
    unserved = await rpc(dispatcher, "tool.invoked.post", probe("conformance.rewrite"))
    assert unserved["result"]["call"]["arguments"] == {"rewritten": True}
    not_probe = await rpc(dispatcher, "tool.invoked.post", probe("x", correlation="c"))
    assert not_probe["error"]["code"] == METHOD_NOT_FOUND
    not_point = await rpc(dispatcher, "conformance.nothing.pre", probe("conformance.pass"))
    assert not_point["error"]["code"] == METHOD_NOT_FOUND


@pytest.mark.parametrize(
    ("version", "served"),
    [(None, True), (SCHEMA_VERSION, True), ("v1", False), ("v999", False)],
    ids=["none", "ours", "the-last-one", "another"],
)
async def test_jsonrpc_refuses_another_schema_version(version, served):
    dispatcher = JsonRpcDispatcher({"tool.invoked.pre": lambda ctx: None})
    out = await rpc(dispatcher, "tool.invoked.pre", probe("x", correlation="c"), version)
    if served:
        assert out["result"] is None
    else:
        assert out["error"]["code"] == -32600
        assert f"'{version}'" in out["error"]["message"]
        assert f"speaks {SCHEMA_VERSION}" in out["error"]["message"]


def call(name, ctx, meta=None):
    return CallToolRequestParams(
        name=name, arguments={"context": ctx.model_dump(mode="json")}, _meta=meta
    )


async def test_mcp_answers_probes_by_the_profile_at_any_point_and_checks_the_version():
    tools = HookTools({"tool.invoked.pre": policy})
    passed = await tools.call_tool(None, call("hooks.tool.invoked.pre", probe("conformance.pass")))
    assert passed.structured_content == {"context": None}
    real = await tools.call_tool(None, call("hooks.tool.invoked.pre", probe("p", correlation="c")))
    assert real.structured_content["abort"]["reason"] == "the policy ran"
    unserved = call("hooks.tool.invoked.in", probe("conformance.rewrite"))
    rewrite = await tools.call_tool(None, unserved)
    assert rewrite.structured_content["context"]["call"]["arguments"] == {"rewritten": True}
    with pytest.raises(MCPError) as unknown:
        await tools.call_tool(None, call("hooks.tool.invoked.in", probe("p", correlation="c")))
    assert unknown.value.error.code == INVALID_PARAMS
    ours = {"tiny-harness.dev/schema": SCHEMA_VERSION}
    ok = await tools.call_tool(None, call("hooks.tool.invoked.pre", probe("conformance.x"), ours))
    assert ok.structured_content == {"context": None}
    with pytest.raises(MCPError) as other:
        await tools.call_tool(
            None,
            call(
                "hooks.tool.invoked.pre",
                probe("conformance.pass"),
                {"tiny-harness.dev/schema": "v9"},
            ),
        )
    assert other.value.error.code == INVALID_REQUEST and "'v9'" in other.value.error.message
