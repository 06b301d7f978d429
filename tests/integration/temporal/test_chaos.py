"""Chaos (issue 10): workers SIGKILLed over and over while tasks take messages and commands.

Three tasks each get eight messages and eight ``/effort`` commands, one at a time,
while a worker subprocess is killed three times, each once it has taken work (it
posted an answer), and a fresh one is started each time. Afterwards nothing is lost
(every message in its transcript, every command applied), nothing failed (every task
finishes ``succeeded``) and nothing is doubled (one transcript entry and one Slack
post per message). A killed worker's workflow tasks wait out their workflow task timeout
(the suite's ``workflow_task_timeout_seconds``, 3 s) before another worker takes them.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import uuid

from harness.domain import ChannelMessage, TaskSpec, TaskStatus
from harness.hooks.contexts import CommandInvokedContext

from .conftest import ROOT, worker_env

TASKS, ROUNDS, KILLS = 3, 8, 3
LEVELS = ("low", "high")


async def drive(harness, index: int) -> tuple[str, str]:
    """One task's conversation: a message, then a command, ``ROUNDS`` times."""
    channel = f"CH{index}-{uuid.uuid4().hex[:6]}"
    ref = await harness.start_task(
        TaskSpec(title=f"chaos {index}", owner="U1"), team="T", channel=channel, thread="9.0"
    )
    for n in range(ROUNDS):
        message = ChannelMessage(
            channel=channel,
            thread="9.0",
            user="U1",
            text=f"message {n} of task {index}",
            ts=f"9.{n + 1}",
        )
        assert await harness.send_message(ref.task_id, message) == n + 1
        level = LEVELS[n % 2]
        result = await harness.send_command(
            CommandInvokedContext(
                task=ref,
                command="effort",
                args=level,
                sender="U1",
                correlation_id=f"chaos-{index}-{n}",
            )
        )
        assert result.reply.startswith(f"effort set to `{level}`"), result.reply
    return ref.task_id, channel


async def test_repeated_kills_lose_fail_and_double_nothing(harness, settings, slack_api):
    env = worker_env(settings, HARNESS_PLUGINS=json.dumps(["commands:plugin"]))
    workers: list[subprocess.Popen[str]] = []
    drains: list[asyncio.Future[str]] = []

    async def start_worker() -> subprocess.Popen[str]:
        worker = subprocess.Popen(
            [sys.executable, "-m", "harness.worker"],
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        workers.append(worker)
        while "task queue" not in await asyncio.to_thread(worker.stderr.readline):  # type: ignore[union-attr]
            assert worker.poll() is None, "worker exited while starting"
        # Keep the pipe drained (a full pipe would block the worker's logging).
        drains.append(asyncio.get_running_loop().run_in_executor(None, worker.stderr.read))  # type: ignore[union-attr]
        return worker

    try:
        worker = await start_worker()
        driving = asyncio.gather(*(drive(harness, i) for i in range(TASKS)))
        for kill in range(KILLS):
            # Once this worker has taken work (it posted an answer), kill it wherever it is.
            posted = len(slack_api.messages)
            async with asyncio.timeout(30):
                while len(slack_api.messages) == posted:
                    await asyncio.sleep(0.02)
            assert not driving.done(), f"kill {kill + 1} came after the work"
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            worker = await start_worker()
        done = await asyncio.wait_for(driving, 90)

        for index, (task_id, channel) in enumerate(done):
            transcript = await harness.transcript(task_id)
            expected = [f"message {n} of task {index}" for n in range(ROUNDS)]
            assert [m.text for m in transcript] == expected  # all there, once each, in order
            assert (await harness.snapshot(task_id)).effort == LEVELS[(ROUNDS - 1) % 2]
            async with asyncio.timeout(30):  # the last reply may still be on its way
                while len(posts(slack_api, channel)) < ROUNDS:
                    await asyncio.sleep(0.1)
            assert sorted(posts(slack_api, channel)) == sorted(f"(offline) {t}" for t in expected)
            await harness.finish(task_id)
            outcome = await asyncio.wait_for(harness.outcome(task_id), 30)
            assert outcome.status == TaskStatus.SUCCEEDED
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGKILL)
                worker.wait()
        logs = "".join(await asyncio.gather(*drains))
        for worker in workers:
            worker.stderr.close()  # type: ignore[union-attr]
    # The kills hit work in flight: some attempt lost its worker and ran again elsewhere.
    assert "lost its worker" in logs, logs[-3000:]


def posts(standin, channel: str) -> list[str]:
    return [m["text"] for m in standin.messages if m["channel"] == channel]
