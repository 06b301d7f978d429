"""A remote JSON-RPC executor that is down fails the operation through the retry path."""

from __future__ import annotations

import asyncio
import socket

from aiohttp import web

from harness.domain import ChannelMessage, TaskSpec
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import JsonRpcExecutor
from harness.hooks.contexts import PersistenceWriteContext
from harness.storage import TranscriptStore
from harness.temporal.client import HarnessClient

from .conftest import assert_replays


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_a_down_remote_executor_fails_the_activity_until_it_comes_back(
    client, settings, manager, worker, recorder, store
):
    # Enough attempts that the server surely comes back before the task gives up.
    harness = HarnessClient(client, settings.model_copy(update={"retry_max_attempts": 20}))
    port = free_port()
    remote = JsonRpcExecutor(
        f"http://127.0.0.1:{port}/rpc", point="persistence.write.pre", timeout=1.0
    )
    manager.register("persistence.write.pre", remote)
    recorder.attach(manager, ["activity.failed", "activity.retried"])
    received: list[PersistenceWriteContext] = []

    async def remote_policy(ctx: PersistenceWriteContext) -> None:
        received.append(ctx)

    first_failure = asyncio.Event()

    async def note_failure(ctx):
        first_failure.set()

    manager.register("activity.failed.post", note_failure)
    ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="J1")
    message = ChannelMessage(channel="J1", user="U1", text="persist me", ts="9.1")
    sending = asyncio.create_task(harness.send_message(ref.task_id, message))
    await asyncio.wait_for(first_failure.wait(), 10)
    assert not sending.done() and received == []

    runner = web.AppRunner(jsonrpc_app({"persistence.write.pre": remote_policy}, path="/rpc"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        assert await asyncio.wait_for(sending, 15) == 1
        await harness.finish(ref.task_id)
        assert (await harness.outcome(ref.task_id)).status == "succeeded"
    finally:
        await runner.cleanup()
        await remote.aclose()

    failed = [
        c
        for c in recorder.seen("activity.failed.post")
        if c.failed_operation == "persistence.write"
    ]
    assert failed and {c.error_type for c in failed} == {"HookTransportError"}
    assert all(c.result.retry for c in failed)
    assert "127.0.0.1" in failed[0].error_message
    retried = recorder.seen("activity.retried.post")
    assert [c.attempt for c in retried] == [c.attempt + 1 for c in failed]
    # The remote saw the write only once it was back, with the attempt number it arrived at.
    assert len(received) == 1 and received[0].attempt == len(failed) + 1
    assert received[0].idempotency_key == failed[0].idempotency_key.rsplit("/failed/", 1)[0]
    entries = await TranscriptStore(store.database).read(f"{ref.task_id}/transcript")
    assert [e.content for e in entries] == [
        '{"channel":"J1","thread":"","user":"U1","text":"persist me","ts":"9.1","blocks":[]}'
    ]
    await assert_replays(client, [ref.task_id])
