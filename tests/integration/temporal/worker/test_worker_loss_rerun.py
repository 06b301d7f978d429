"""A killed worker's unrecorded workflow task, run again by the next worker (issue 27).

A local step runs inside its workflow task and is recorded only when that task completes:
a worker SIGKILLed before then leaves the task to be run again from the last recorded
one, and every step since runs again. Two things must then be as on the first run: each
step's idempotency key (an update that reached the server meanwhile is handled first in
the re-run's first activation, and must not shift the keys of the main loop's steps), and
what each read returns (a read must not see a write of a step after it in the same task).
Both workers run the built-in short steps locally, as every worker does by default
(docs/architecture.md, "Where each operation runs").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator

from harness.domain import ChannelMessage, TaskSpec
from harness.hooks.contexts import CommandInvokedContext
from harness.storage.ledger import Ledger
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.worker import build_manager, build_worker

from ..conftest import ROOT, assert_replays, worker_env
from .conftest import plugin_env


def worker_a(settings, tmp_path, signals, plugin: str, step: str) -> subprocess.Popen[bytes]:
    """The worker that dies: the commands and a test plugin that stops it at ``step``."""
    here = "tests.integration.temporal.plugins"
    plugins = ["commands:plugin", f"{here}:{plugin}"]
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(plugins),
        **plugin_env(settings, tmp_path, signals, step),
    )
    return subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


@contextlib.asynccontextmanager
async def worker_b(client, settings, store, harness, task_id: str) -> AsyncIterator[None]:
    """Worker B, with A's claims (a fleet shares them); the task ends after, and replays."""
    from commands import register_all

    manager = build_manager(settings, store.database)
    register_all(manager, models=("offline",))
    claims = Ledger.over(store.database)
    activities = HarnessActivities(manager, heartbeat_seconds=0.5, claims=claims)
    async with build_worker(client, settings, activities):
        yield
        await harness.finish(task_id)
        await asyncio.wait_for(harness.outcome(task_id), 60)
        await assert_replays(client, [task_id])
    await manager.aclose()


def texts(slack_api, channel: str) -> list[str]:
    return [m["text"] for m in slack_api.messages if m["channel"] == channel]


async def test_an_update_handled_first_on_the_rerun_leaves_the_reply_posted_once(
    client, settings, store, harness, tmp_path, signals, slack_api
):
    channel = "RR-keys"
    process = worker_a(settings, tmp_path, signals, "posted_plugin", "posted")
    try:
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T", channel=channel, thread="8.0"
        )
        said = ChannelMessage(channel=channel, thread="8.0", user="U1", text="once", ts="8.1")
        assert await harness.send_message(ref.task_id, said) == 1
        assert await asyncio.wait_for(signals.reached.get(), 30) == "posted"
        # Reaches the server while A's task is open: the re-run's first activation has it.
        command = asyncio.create_task(
            harness.send_command(
                CommandInvokedContext(task=ref, command="effort", args="high", sender="U1")
            )
        )
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    async with worker_b(client, settings, store, harness, ref.task_id):
        assert (await asyncio.wait_for(command, 60)).reply.startswith("effort set to `high`")
    assert texts(slack_api, channel).count("(offline) once") == 1  # posted by A, not again


async def test_a_message_taken_in_the_first_task_is_answered_after_a_kill(
    client, settings, store, harness, tmp_path, signals, slack_api
):
    channel = "RR-first"
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U1"), team="T", channel=channel, thread="9.0"
    )
    said = ChannelMessage(channel=channel, thread="9.0", user="U1", text="first", ts="9.1")
    # Sent before any worker runs: the start and the message reach A in one workflow task.
    sending = asyncio.create_task(harness.send_message(ref.task_id, said))
    await asyncio.sleep(0.5)
    process = worker_a(settings, tmp_path, signals, "appended_plugin", "appended")
    try:
        assert await asyncio.wait_for(signals.reached.get(), 30) == "appended"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    async with worker_b(client, settings, store, harness, ref.task_id):
        assert await asyncio.wait_for(sending, 60) == 1
        async with asyncio.timeout(30):  # answered (a lost one never is)
            while "(offline) first" not in texts(slack_api, channel):
                await asyncio.sleep(0.1)
    assert [m.text for m in await harness.transcript(ref.task_id)] == ["first"]
    assert texts(slack_api, channel).count("(offline) first") == 1
