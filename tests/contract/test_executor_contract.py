"""One contract, every executor: in-memory, JSON-RPC over HTTP, MCP over stdio.

Each test runs once per transport (``ids=["memory", "jsonrpc", "mcp"]``, after the MCP
SDK's ``pair_factory``) against the same hook function (``contract_hooks.py``), so
pass-through, replacement, abort, timeout and malformed replies cannot drift apart.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from aiohttp import web

from harness.domain import Participant, Role, TaskRef, ToolCall, ToolResult
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import HookAbort, HookManager, HookTransportError
from harness.hooks.contexts import LlmInvokedContext, ToolInvokedContext
from harness.hooks.remote import McpConnection, McpExecutor
from harness.hooks.remote.jsonrpc import JsonRpcExecutor
from harness.hooks.remote.memory import InMemoryExecutor
from tests.contract import contract_hooks
from tests.contract.contract_hooks import HOOKS, PAUSE, POINT, SECRET, contract_hook

TIMEOUT = 0.3
Make = Callable[..., Any]


@pytest.fixture(scope="module")
async def jsonrpc_url() -> AsyncIterator[str]:
    runner = web.AppRunner(jsonrpc_app(HOOKS), handler_cancellation=True, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}/"
    await runner.cleanup()


@pytest.fixture(scope="module")
async def mcp_connection() -> AsyncIterator[McpConnection]:
    connection = McpConnection([sys.executable, contract_hooks.__file__])
    await connection.connect()  # the process start must not count against TIMEOUT
    yield connection
    await connection.aclose()


@pytest.fixture(params=["memory", "jsonrpc", "mcp"], ids=["memory", "jsonrpc", "mcp"])
def transport(request: pytest.FixtureRequest) -> tuple[str, Any]:
    """The transport's name and its running server; servers start only when needed."""
    servers = {"memory": None, "jsonrpc": "jsonrpc_url", "mcp": "mcp_connection"}
    server = servers[request.param]
    return request.param, None if server is None else request.getfixturevalue(server)


@pytest.fixture
async def make(transport: tuple[str, Any]) -> AsyncIterator[Make]:
    """Builds executors of one transport for a point; closes them after the test."""
    kind, server = transport
    built: list[Any] = []

    def factory(point: str = POINT, timeout: float = TIMEOUT) -> Any:
        if kind == "memory":
            executor: Any = InMemoryExecutor(HOOKS[point], point=point, timeout=timeout)
        elif kind == "jsonrpc":
            executor = JsonRpcExecutor(server, point=point, timeout=timeout)
        else:
            executor = McpExecutor(server, point=point, timeout=timeout)
        built.append(executor)
        return executor

    yield factory
    for executor in built:
        await executor.aclose()


def call(name: str) -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1", team="TEAM", channel="C1", thread="171.1"),
        participants=(Participant(user_id="U1", role=Role.OWNER, name="Ada"),),
        entities={"repo": "tiny-harness"},
        correlation_id="corr-7",
        attempt=2,
        idempotency_key="T1:op-7",
        call=ToolCall(id="call-1", name=name, arguments={"q": "weather", "max_results": 50}),
        server="search",
    )


async def test_null_reply_passes_through(make):
    assert await make()(call("pass")) is None


async def test_replacement_round_trips_to_exactly_what_the_function_returned(make):
    ctx = call("rewrite")
    out = await make()(ctx)
    assert type(out) is ToolInvokedContext
    assert out == await contract_hook(ctx)
    assert out.call.arguments == {"q": "weather", "max_results": 5, "note": "capped"}


@pytest.mark.parametrize(("name", "refusal"), [("veto", True), ("abort", False)])
async def test_abort_becomes_hook_abort_with_its_reason_as_sent(make, name, refusal):
    with pytest.raises(HookAbort) as caught:
        await make()(call(name))
    assert caught.value.refusal is refusal
    assert caught.value.reason in (f"no shell for you ({SECRET})", "budget exhausted")


async def test_an_aborts_reason_is_redacted_once_as_it_leaves_the_manager(make):
    """Issue 25: the executor hands the reason on as sent; the manager scrubs it, once."""
    manager = HookManager()
    manager.register(POINT, make())
    with pytest.raises(HookAbort) as caught:
        await manager.run(ToolInvokedContext.operation, call("veto"))
    assert caught.value.reason == "no shell for you ([REDACTED])"
    assert [record.reason for record in manager.aborts] == ["no shell for you ([REDACTED])"]


async def test_an_ask_holds_the_call_for_approval_with_its_timeout(make):
    """Issue 14: a remote policy answers "ask" as a local one does (HookAbort(ask=True))."""
    with pytest.raises(HookAbort) as caught:
        await make()(call("ask"))
    abort = caught.value
    assert (abort.ask, abort.refusal, abort.timeout_seconds) == (True, True, 45.0)
    assert abort.reason == "a person must approve this search"


async def test_timeout_is_a_transport_error_within_the_deadline(make):
    started = time.monotonic()
    with pytest.raises(HookTransportError) as caught:
        await make()(call("slow"))
    assert time.monotonic() - started < TIMEOUT + 1.0
    assert caught.value.point == POINT


async def test_reply_that_is_not_a_valid_context_is_a_transport_error(make):
    with pytest.raises(HookTransportError) as caught:
        await make()(call("invalid"))
    assert "attempt" in caught.value.cause


async def test_failing_function_is_a_transport_error_with_a_redacted_cause(make):
    with pytest.raises(HookTransportError) as caught:
        await make()(call("crash"))
    assert "database refused token" in caught.value.cause
    assert SECRET not in str(caught.value)


async def test_context_of_another_point_is_refused(make):
    with pytest.raises(HookTransportError):
        await make()(LlmInvokedContext(model="m", messages=()))


async def test_in_a_manager_a_rewrite_is_the_input_and_a_veto_is_recorded(make):
    manager = HookManager()
    executor = make()
    manager.register(POINT, executor)
    out = await manager.run("tool.invoked", call("rewrite"))
    assert out.call.arguments["max_results"] == 5
    with pytest.raises(HookAbort):
        await manager.run(ToolInvokedContext.operation, call("veto"))
    assert manager.aborts[-1].executor == executor.name
    assert manager.aborts[-1].refusal is True


# --- observers and parallel validators (issue 15, point 6) ----------------------------


def with_body(manager: HookManager) -> HookManager:
    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content="ran")})

    manager.register("tool.invoked.in", body)
    return manager


async def test_a_slow_observer_does_not_delay_the_operation(make):
    manager = with_body(HookManager())
    manager.register(POINT, make(), mode="observer")  # "slow" answers in 5 s; it times out
    out = await manager.run("tool.invoked", call("slow"))
    assert out.result.content == "ran"
    assert manager.observers.running == 1  # the operation is done, the observation is not
    assert await manager.observers.drain(timeout=TIMEOUT + 5)
    [stats] = manager.observers.stats()
    assert (stats.completed, stats.failures) == (1, 1)  # its timeout is its own failure


@pytest.mark.parametrize("name", ["veto", "abort", "ask", "rewrite", "crash", "invalid"])
async def test_an_observer_neither_aborts_nor_changes_the_operation(make, name):
    manager = with_body(HookManager())
    manager.register(POINT, make(), mode="observer")
    out = await manager.run("tool.invoked", call(name))
    assert await manager.observers.drain(timeout=TIMEOUT + 5)
    assert out.result.content == "ran" and out.call == call(name).call
    assert manager.aborts == []
    ignored = [r for r in manager.audit.last(5) if r.kind == "observer_ignored"]
    assert len(ignored) == (0 if name == "rewrite" else 1)
    assert all(SECRET not in r.reason for r in ignored)


async def test_remote_validators_of_a_point_run_concurrently(make):
    manager = with_body(HookManager())
    manager.register(POINT, make(timeout=5 * PAUSE), mode="validator")
    manager.register(POINT, make(timeout=5 * PAUSE), mode="validator")
    started = time.monotonic()
    out = await manager.run("tool.invoked", call("pause"))
    elapsed = time.monotonic() - started
    assert out.result.content == "ran"
    assert PAUSE <= elapsed < 1.8 * PAUSE  # one by one would take two pauses


@pytest.mark.parametrize("local_vetoes", [True, False], ids=["local-first", "remote-next"])
async def test_the_first_veto_in_order_wins_whichever_answers_first(make, local_vetoes):
    manager = with_body(HookManager())
    remote = make()

    async def local(ctx):
        await asyncio.sleep(0.05)  # the remote veto is usually back by now; order still decides
        if local_vetoes:
            raise HookAbort("the local validator, first in order")

    manager.register(POINT, remote, priority=2, mode="validator")
    manager.register(POINT, local, priority=1, mode="validator")
    with pytest.raises(HookAbort) as caught:
        await manager.run(ToolInvokedContext.operation, call("veto"))
    if local_vetoes:
        assert caught.value.executor.endswith("local") and "first in order" in caught.value.reason
    else:
        assert caught.value.executor == remote.name
        assert caught.value.reason == "no shell for you ([REDACTED])"
