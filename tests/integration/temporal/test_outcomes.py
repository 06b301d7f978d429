"""Issue 25: a "no" is one value and one activity, read from the workflow's real history.

A remote JSON-RPC executor (a real aiohttp server) vetoes a tool call; a watcher's
``/effort high`` is refused by the role guard. Each costs exactly one activity of its
operation: no ``activity.failed`` (nor ``dispatch-hooks-v1``) runs after it, because the
activity *returns* the refusal instead of failing. The model reads the veto as its tool
result, the sender reads ``refused: …``, and the histories replay. A secret in the remote's
reason is masked once, as the abort leaves the manager, and stays masked in the thread and
the history.
"""

from __future__ import annotations

import asyncio
import socket
import time
import uuid
from collections import Counter

from aiohttp import web

from commands import register_all
from harness.domain import ChannelMessage, Participant, Role, TaskSpec
from harness.hook_server import jsonrpc_app
from harness.hooks import HookAbort, JsonRpcExecutor
from harness.hooks.catalogue import DISPATCH_HOOKS
from harness.hooks.contexts import CommandInvokedContext, ToolInvokedContext
from tests.support.history import opened_bytes, steps_run

from .conftest import assert_replays

SECRET = "xoxb-123456789012-abcdefghijkl"
"""A Slack token in a remote executor's reason: the redactor knows its shape."""
RETRY_ACTIVITIES = {"activity-failed-v1", "activity-retried-v1", DISPATCH_HOOKS}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def scheduled(client, task_id: str) -> Counter[str]:
    """How many times each activity type ran in the task's history (local ones included)."""
    return await steps_run(client, task_id)


def posts(slack_api, channel: str) -> list[str]:
    return [a["text"] for m, a in slack_api.calls if a.get("channel") == channel]


async def test_a_remote_veto_of_a_tool_call_is_one_activity_and_the_models_tool_result(
    harness, manager, worker, slack_api, client
):
    seen: list[ToolInvokedContext] = []

    async def veto(ctx: ToolInvokedContext) -> None:
        seen.append(ctx)
        raise HookAbort(f"echo is switched off in this channel ({SECRET})", refusal=True)

    port = free_port()
    runner = web.AppRunner(jsonrpc_app({"tool.invoked.pre": veto}, path="/rpc"))
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    remote = JsonRpcExecutor(f"http://127.0.0.1:{port}/rpc", point="tool.invoked.pre")
    manager.register("tool.invoked.pre", remote)
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    try:
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T", channel=channel, thread="1.0"
        )
        text = 'call echo {"text": "hi"}'
        message = ChannelMessage(channel=channel, thread="1.0", user="U1", text=text, ts="1.1")
        await harness.send_message(ref.task_id, message)
        deadline = time.monotonic() + 20
        while not (said := posts(slack_api, channel)):
            assert time.monotonic() < deadline, "no reply"
            await asyncio.sleep(0.05)
    finally:
        await runner.cleanup()
        await remote.aclose()
    assert len(seen) == 1  # asked once: a veto is not retried
    # The model read the veto as the call's result and answered with it.
    assert said == [
        "Tool results:\n- echo: refused: echo is switched off in this channel ([REDACTED])"
    ]
    assert SECRET.encode() not in await opened_bytes(client, ref.task_id)
    counts = await scheduled(client, ref.task_id)
    assert counts["tool-invoked-v1"] == 1
    assert not RETRY_ACTIVITIES & set(counts), counts
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    await assert_replays(client, [ref.task_id])


async def test_a_refused_command_is_one_activity(harness, manager, worker, client):
    register_all(manager)
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    watcher = Participant(user_id="U2", role=Role.WATCHER)
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U1"), team="T", channel=channel, participants=[watcher]
    )
    result = await harness.send_command(
        CommandInvokedContext(task=ref, command="effort", args="high", sender="U2")
    )
    assert result.reply.startswith("refused: ") and result.effects == ()
    assert ref.task_id not in result.reply and "U2" not in result.reply
    counts = await scheduled(client, ref.task_id)
    assert counts["command-invoked-v1"] == 1
    assert not RETRY_ACTIVITIES & set(counts), counts
    assert (await harness.snapshot(ref.task_id)).effort == "medium"  # nothing changed
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    await assert_replays(client, [ref.task_id])


async def test_the_retry_hooks_have_their_own_activities_so_a_reorder_fails_the_replay(
    harness, manager, worker, client, monkeypatch
):
    """activity.failed and activity.retried each run in an activity of their own type: code
    that swapped them would schedule another activity type than the history holds, a
    non-determinism error at replay (with one shared activity it replayed on and failed
    decoding arguments instead)."""
    from temporalio.worker import Replayer
    from temporalio.workflow import NondeterminismError

    from harness.temporal.workflow import retries
    from harness.temporal.workflow.request import RequestWorkflow
    from harness.temporal.workflow.task import TaskWorkflow

    from .conftest import DATA_CONVERTER

    failures = [1]

    async def fails_once(ctx):
        if failures:
            failures.pop()
            raise ConnectionError("blip")

    manager.register("task.created.pre", fails_once)
    ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="ORDER")
    await harness.finish(ref.task_id)
    assert (await harness.outcome(ref.task_id)).status == "succeeded"
    counts = await scheduled(client, ref.task_id)
    assert (counts["activity-failed-v1"], counts["activity-retried-v1"]) == (1, 1)
    assert DISPATCH_HOOKS not in counts
    history = await client.get_workflow_handle(ref.task_id).fetch_history()
    replayer = Replayer(workflows=[TaskWorkflow, RequestWorkflow], data_converter=DATA_CONVERTER)
    await replayer.replay_workflow(history)  # as written, it replays

    swapped = {"activity.failed": "activity-retried-v1", "activity.retried": "activity-failed-v1"}
    real = retries.activity_of
    monkeypatch.setattr(retries, "activity_of", lambda op: swapped.get(op) or real(op))
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert isinstance(result.replay_failure, NondeterminismError), result.replay_failure
