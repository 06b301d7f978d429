"""A remote executor that declares itself non-idempotent gets the operation's key (issue 10).

Configured with ``idempotent = false``, every JSON-RPC call carries ``Idempotency-Key``:
the same for every retry and re-run of one operation, another for the next operation,
so the server can refuse to repeat an effect. Others send no such header.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from harness.domain import ToolCall
from harness.hooks import HookConfigError, HookManager, load_hooks_config
from harness.hooks.contexts import ToolInvokedContext


@pytest.fixture
async def server() -> AsyncIterator[tuple[str, list[str | None]]]:
    seen: list[str | None] = []

    async def handle(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(request.headers.get("Idempotency-Key"))
        return web.json_response({"jsonrpc": "2.0", "id": body["id"], "result": None})

    app = web.Application()
    app.router.add_post("/hooks", handle)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/hooks", seen
    await runner.cleanup()


def ctx(key: str, attempt: int = 1, lost: int = 0) -> ToolInvokedContext:
    return ToolInvokedContext(
        idempotency_key=key,
        attempt=attempt,
        lost_workers=lost,
        call=ToolCall(id="c1", name="send_invoice"),
    )


@pytest.mark.parametrize("idempotent", [False, True])
async def test_the_key_goes_with_every_call_of_a_non_idempotent_remote(
    tmp_path: Path, server, idempotent
):
    url, seen = server
    path = tmp_path / "hooks.toml"
    flag = str(idempotent).lower()
    path.write_text(
        f'[[executor]]\nname = "billing"\npoints = "tool.invoked.post"\n'
        f'kind = "jsonrpc"\nurl = "{url}"\nidempotent = {flag}\n'
    )
    manager = HookManager()
    load_hooks_config(path).apply(manager)
    try:
        await manager.run("tool.invoked", ctx("task/T/C/run/7"))
        await manager.run("tool.invoked", ctx("task/T/C/run/7", attempt=2))  # a retry
        await manager.run("tool.invoked", ctx("task/T/C/run/7", lost=1))  # after a lost worker
        await manager.run("tool.invoked", ctx("task/T/C/run/8"))  # the next operation
    finally:
        await manager.aclose()
    if idempotent:
        assert seen == [None] * 4
    else:
        key = "task/T/C/run/7#tool.invoked.post"
        assert seen == [key, key, key, "task/T/C/run/8#tool.invoked.post"]


def test_only_jsonrpc_executors_take_the_setting(tmp_path: Path):
    path = tmp_path / "hooks.toml"
    path.write_text(
        '[[executor]]\npoints = "tool.invoked.pre"\nkind = "mcp"\n'
        'command = ["python", "x.py"]\nidempotent = false\n'
    )
    with pytest.raises(HookConfigError, match="idempotent = false applies to jsonrpc"):
        load_hooks_config(path)
