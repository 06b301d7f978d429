"""A worker names the executor that blocks its event loop, with the point and how long (issue 26).

The real worker (``serve``) on the dev server, an in-process ``async def`` executor that calls
``time.sleep``: the worker's log says which executor at which point held the loop, and the
task still ends (the blocked attempt is re-run if its heartbeats timed out meanwhile).
"""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time

from harness.domain import TaskSpec, TaskStatus
from harness.temporal.worker import serve


async def test_a_blocking_async_executor_is_named_in_the_workers_log(
    client, settings, harness, manager, caplog
):
    assert settings.loop_block_warn_seconds == 1.0  # the default: the worker watches its loop
    blocked = asyncio.Event()

    async def blocking(ctx):
        if not blocked.is_set():  # once: a retried attempt goes through
            blocked.set()
            time.sleep(2)  # the bug: a synchronous sleep inside an async executor

    reg = manager.register("task.complete.pre", blocking)
    stop = asyncio.Event()
    serving = asyncio.create_task(serve(settings, stop, client=client, manager=manager))
    try:
        ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="S1")
        await harness.finish(ref.task_id, summary="bye")
        outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 30)
    finally:
        stop.set()
        await asyncio.wait_for(serving, 15)

    assert outcome.status == TaskStatus.SUCCEEDED
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name == "harness.loop_watch" and r.levelno == logging.WARNING
    ]
    [line] = [line for line in lines if reg.name in line]
    assert f"by hook executor {reg.name} at task.complete.pre" in line
    seconds = re.search(r"blocked for at least (\d+\.\d) s", line)
    assert seconds is not None, line
    assert 1.0 <= float(seconds.group(1)) <= 3.0
    assert not any(t.name == "harness-loop-watch" for t in threading.enumerate())
