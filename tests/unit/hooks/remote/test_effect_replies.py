"""A remote executor's command effects (issue 25, point 5), over real JSON-RPC on loopback: a
typed effect is read as its class, a v1-shaped one (what executors built against
``schemas/v1`` send) still is, and a wrong one is a non-conforming reply that names the field,
never an effect the workflow would have to check again."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from harness.domain import Role, SetEffort, SetModel
from harness.hooks import HookTransportError, JsonRpcExecutor
from harness.hooks.contexts import CommandInvokedContext
from harness.http import AiohttpClient

POINT = "command.invoked.post"


@pytest.fixture
async def effect_server():
    """``url(effect)``: a JSON-RPC executor answering with the context, ``effect`` its result's."""
    replies: list[object] = []

    async def handle(request: web.Request) -> web.Response:
        body = await request.json()
        ctx = body["params"]["context"]
        ctx["result"] = {"reply": "changed remotely", "effects": [replies[-1]], "public": True}
        return web.json_response({"jsonrpc": "2.0", "id": body["id"], "result": ctx})

    app = web.Application()
    app.router.add_post("/hooks", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    base = f"http://127.0.0.1:{runner.addresses[0][1]}/hooks"
    http = AiohttpClient()

    async def call(effect: object) -> CommandInvokedContext:
        replies.append(effect)
        ctx = CommandInvokedContext(command="effort", args="high", sender="U1", role=Role.OWNER)
        out = await JsonRpcExecutor(base, point=POINT, http=http)(ctx)
        assert isinstance(out, CommandInvokedContext) and out.result is not None
        return out

    try:
        yield call
    finally:
        await http.aclose()
        await runner.cleanup()


async def test_a_typed_effect_is_read_as_its_class(effect_server):
    out = await effect_server({"kind": "set_model", "model": "gpt-x"})
    assert out.result.effects == (SetModel(model="gpt-x"),)


async def test_a_v1_shaped_effect_is_still_read(effect_server):
    flat = {"kind": "set_effort", "value": "high", "user_id": "", "subtask": None, "amount": 0.0}
    out = await effect_server(flat)
    assert out.result.effects == (SetEffort(effort="high"),)
    assert "value" not in json.loads(out.model_dump_json())["result"]["effects"][0]


@pytest.mark.parametrize(
    ("effect", "named"),
    [
        ({"kind": "set_effort", "effort": "extreme"}, "effects.0.set_effort.effort"),
        ({"kind": "set_effort", "value": "extreme"}, "effects.0.set_effort.effort"),
        ({"kind": "grant_role", "user_id": "U2", "role": "owner"}, "effects.0.grant_role.role"),
        ({"kind": "set_budget", "limit": "tokens", "amount": -5}, "effects.0.set_budget.amount"),
        ({"kind": "delete_task"}, "effects.0"),
    ],
    ids=["effort", "flat-effort", "role", "budget", "kind"],
)
async def test_a_wrong_effect_is_a_non_conforming_reply_naming_the_field(
    effect_server, effect, named
):
    with pytest.raises(HookTransportError) as refused:
        await effect_server(effect)
    assert refused.value.point == POINT
    assert (
        f"reply does not conform (RpcResponse[CommandInvokedContext]): result.result.{named}:"
        in (str(refused.value))
    )
