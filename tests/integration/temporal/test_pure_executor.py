"""Issue 15, point 7 in the worker: a pure remote executor is asked once across a Temporal retry.

The real worker entry (:func:`serve`, its manager and decision store built from
``Settings``) runs against the real dev server. The hooks file declares a JSON-RPC policy
(a real aiohttp server in this process that counts its requests and tags the context) at
``persistence.write.pre``, and a local executor at ``persistence.write.post`` that fails
the operation's first attempt, so the workflow runs the operation again. Declared pure,
the policy is asked once and its rewrite replayed on attempt 2; not pure, it is asked twice.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web

from harness.domain import ChannelMessage, TaskSpec
from harness.hook_server import jsonrpc_app
from harness.hooks.contexts import PersistenceWriteContext
from harness.storage.audit import recent_audit
from harness.temporal.client import HarnessClient
from harness.temporal.worker import serve
from tests.support.history import steps_run

from .conftest import assert_replays

ME = "tests.integration.temporal.test_pure_executor"


def fail_first_attempt(*, record: str):
    """A ``persistence.write.post`` executor: notes what it saw, and fails attempt 1."""
    log = Path(record)

    async def flaky_post(ctx: PersistenceWriteContext) -> None:
        with log.open("a") as out:
            out.write(json.dumps([ctx.attempt, dict(ctx.entities).get("checked")]) + "\n")
        if ctx.attempt == 1:
            raise ConnectionError("the archive blinked")

    return flaky_post


@pytest.fixture
async def policy_server():
    """A JSON-RPC policy tagging each write it checks; ``requests`` is what it was sent."""
    requests: list[PersistenceWriteContext] = []

    async def check(ctx: PersistenceWriteContext):
        requests.append(ctx)
        return ctx.model_copy(update={"entities": {**ctx.entities, "checked": "by-policy"}})

    runner = web.AppRunner(jsonrpc_app({"persistence.write.pre": check}))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/", requests
    await runner.cleanup()


async def scheduled(client, task_id: str, activity: str) -> int:
    return (await steps_run(client, task_id))[activity]


@pytest.mark.parametrize("pure", [True, False], ids=["pure", "not-pure"])
async def test_a_pure_remote_executor_is_asked_once_across_a_temporal_retry(
    client, settings, policy_server, tmp_path, pure
):
    url, requests = policy_server
    record = tmp_path / "post.jsonl"
    config = tmp_path / "hooks.toml"
    config.write_text(f"""
[[executor]]
name = "policy"
kind = "jsonrpc"
points = "persistence.write.pre"
url = "{url}"
pure = {str(pure).lower()}

[[executor]]
name = "flaky-archive"
kind = "local"
points = "persistence.write.post"
target = "{ME}:fail_first_attempt"
options = {{ record = "{record}" }}
""")
    configured = settings.model_copy(update={"hooks_config": config})
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(configured, stop, client=client))
    try:
        harness = HarnessClient(client, configured)
        channel = "P1" if pure else "P2"  # one task per run: the task id is the channel's
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T1", channel=channel, thread="1.0"
        )
        message = ChannelMessage(channel=channel, thread="1.0", user="U1", text="keep me", ts="1.1")
        assert await harness.send_message(ref.task_id, message) == 1
        assert len(await harness.transcript(ref.task_id)) == 1
        await harness.finish(ref.task_id)
        assert (await harness.outcome(ref.task_id)).status == "succeeded"
    finally:
        stop.set()
        await worker

    # The operation ran twice, as attempts 1 and 2 (two activities in the task's history),
    # and both attempts had the policy's rewrite as their input.
    seen = [json.loads(line) for line in record.read_text().splitlines()]
    assert seen == [[1, "by-policy"], [2, "by-policy"]]
    assert await scheduled(client, ref.task_id, "persistence-write-v1") == 2
    audit = await recent_audit(configured.database)
    reused = [r for r in audit if r.kind == "reused_decision"]
    if pure:
        assert [c.attempt for c in requests] == [1]
        assert [(r.point, r.executor, r.task_id) for r in reused] == [
            ("persistence.write.pre", "policy", ref.task_id)
        ]
    else:
        assert [c.attempt for c in requests] == [1, 2]
        assert reused == []
    assert len({c.idempotency_key for c in requests}) == 1
    await assert_replays(client, [ref.task_id])
