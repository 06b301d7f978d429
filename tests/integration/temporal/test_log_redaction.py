"""The worker process never prints a secret it is configured with, whatever its shape (issue 9)."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys

import pytest

from harness.domain import TaskSpec
from harness.temporal.errors import TaskRejected

from .conftest import ROOT, worker_env

ODD_SECRET = "zq-OddShaped-7Z3kQ9-not-any-known-family"


async def test_a_configured_secret_of_no_known_shape_never_reaches_the_worker_log(
    settings, harness
):
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(["tests.integration.temporal.plugins:leaky_plugin"]),
        HARNESS_OPENAI_API_KEY=ODD_SECRET,
        HARNESS_RETRY_MAX_ATTEMPTS="1",
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    try:
        while worker.poll() is None:
            line = await asyncio.to_thread(worker.stderr.readline)  # type: ignore[union-attr]
            lines.append(line)
            if "task queue" in line:
                break
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="LR")
        with pytest.raises(TaskRejected, match=r"RuntimeError: upstream refused key \[REDACTED\]"):
            await asyncio.wait_for(harness.outcome(ref.task_id), 30)
    finally:
        worker.send_signal(signal.SIGTERM)
        _, rest = await asyncio.to_thread(worker.communicate, timeout=15)
    output = "".join(lines) + rest
    assert "plugin loaded with key [REDACTED]" in output  # logged, masked
    assert "task.created sees [REDACTED]" in output
    assert "Traceback" in output  # the activity's failure is logged with its traceback ...
    assert ODD_SECRET not in output  # ... and nothing anywhere shows the key
