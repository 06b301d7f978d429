"""Issue 26: a remote hook executor that goes down and comes back, as the thread reads it.

Real bot, real worker, real dev server, and a real JSON-RPC hook executor (``policy-gate``,
on ``tool.invoked.pre``) served on a loopback port that is closed, opened, closed and
opened again. While its calls are retried the thread hears one sentence, as it does of a
model that does not answer (the service by its configured name: no class, address or
socket text); a request that gave up is the status view's last error until the task
answers again; and a service back within the retries lets the request go on.
"""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from harness.config import Settings
from harness.hook_server import jsonrpc_app

from .conftest import posting_to
from .loopback import LoopbackService, bot_beside
from .threads import Thread, until

DOWN = "the hook service `policy-gate` could not be reached"
FAILED = f"failed: {DOWN} (tried 4 times); try again in a minute"


class HookService(LoopbackService):
    """``policy-gate``: a JSON-RPC executor that passes every tool call, started and stopped."""

    calls = 0

    async def passes(self, ctx):
        self.calls += 1

    def app(self) -> web.Application:
        return jsonrpc_app({"tool.invoked.pre": self.passes}, path="/rpc")


@pytest.fixture
def service() -> HookService:
    return HookService()


@pytest.fixture
def settings(settings: Settings, bot_port, tmp_path, service) -> Settings:
    hooks = tmp_path / "hooks.toml"
    hooks.write_text(
        "[[executor]]\n"
        'name = "policy-gate"\n'
        'kind = "jsonrpc"\n'
        'points = ["tool.invoked.pre"]\n'
        f'url = "http://127.0.0.1:{service.port}/rpc"\n'
        "timeout = 1.0\n"
    )
    # Retries a second apart, so the service can come back between two of them.
    return posting_to(
        settings,
        bot_port,
        hooks_config=hooks,
        retry_initial_backoff_seconds=1.0,
        retry_backoff_multiplier=1,
        retry_max_backoff_seconds=1.0,
    )


@pytest.fixture
async def slack(harness, tmp_path, bot_port, worker, service):
    async for sender in bot_beside(service, harness, tmp_path, bot_port, start=False):
        yield sender


async def test_a_hook_service_outage_is_said_while_retried_and_forgotten_once_answered(
    slack, harness, service
):
    thread = Thread(slack, harness)
    await thread.start('call echo {"text": "first"}')
    assert await thread.until_posted(FAILED) == FAILED
    notices = [p for p in thread.posts() if p.startswith(DOWN)]
    assert notices == [f"{DOWN}; retrying, 2 of 4", f"{DOWN}; retrying, 4 of 4"]
    snapshot = await harness.snapshot(thread.task_id)
    assert snapshot.last_error == FAILED
    assert f"last error: {FAILED}" in await thread.slash("/task status")

    await service.start()
    await thread.say('call echo {"text": "second"}')
    await thread.until_posted("echo: second")
    assert service.calls == 1
    snapshot = await harness.snapshot(thread.task_id)
    assert snapshot.last_error == "" and snapshot.status == "running"
    assert "last error" not in await thread.slash("/task status")


async def test_a_hook_service_back_within_the_retries_lets_the_request_go_on(
    slack, harness, service
):
    thread = Thread(slack, harness)
    await thread.start('call echo {"text": "later"}')
    await thread.until_posted(f"{DOWN}; retrying, 2 of 4")
    await service.start()
    await thread.until_posted("echo: later")
    await asyncio.sleep(0.5)  # anything the retries still said would be posted by now
    said = thread.posts()
    assert [p for p in said if p.startswith("failed:")] == []
    assert f"{DOWN}; retrying, 4 of 4" not in said
    assert await until(lambda: service.calls >= 1, what="the service's call")
    assert (await harness.snapshot(thread.task_id)).last_error == ""
