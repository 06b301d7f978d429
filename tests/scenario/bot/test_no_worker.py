"""A mention with no worker polling is acked within Slack's 3 s and answered with what to check.

Real dev server, real bot, and no worker on the test's task queue: Temporal accepts
the request and would keep it forever. The bot acks at once, the client gives up
after ``HARNESS_UPDATE_TIMEOUT_SECONDS``, withdraws the request, and the thread is
told no worker answered on task queue X; the log says so once.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid

import pytest
from temporalio.client import WorkflowExecutionStatus

from harness.temporal.client import HarnessClient

from .conftest import TEAM, serve_bot

WAIT = 1.5


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"update_timeout_seconds": WAIT})


async def test_a_mention_with_no_worker_is_acked_then_told_which_queue_to_check(
    harness, client, settings, tmp_path, caplog
):
    caplog.set_level(logging.INFO)
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    event_id = f"Ev{uuid.uuid4().hex[:8].upper()}"
    async for slack in serve_bot(harness, tmp_path):
        started = time.monotonic()
        status, _ = await slack.event(
            "app_mention.json", channel=channel, event_id=event_id, ts="9.0", event_ts="9.0"
        )
        assert status == 200 and time.monotonic() - started < 3.0  # acked: Slack won't retry
        async with asyncio.timeout(WAIT + 5):
            while not (
                said := [
                    a
                    for m, a in slack.bot.standin.calls
                    if m == "chat.postMessage" and a.get("channel") == channel
                ]
            ):
                await asyncio.sleep(0.05)
        told = time.monotonic() - started
    [post] = said
    assert WAIT <= told < WAIT + 3
    assert post["thread_ts"] == "9.0"
    assert post["text"] == (
        f"no worker answered within {WAIT:g} s, so nothing was sent to the task: is the harness "
        f"worker running on task queue `{settings.task_queue}`? (no worker is polling it) "
        "Try again once it is"
    )
    logged = [r.getMessage() for r in caplog.records if "not delivered" in r.getMessage()]
    assert logged == [
        f"request {event_id} not delivered: task "
        f"{HarnessClient.task_id(TEAM, channel)}: no worker answered within "
        f"{WAIT:g} s on task queue {settings.task_queue} (no worker polls it); "
        "nothing was delivered"
    ]
    # Withdrawn, so a worker that starts later routes nothing the sender was told was dropped.
    key = f"request/{HarnessClient.task_id(TEAM, channel)}/event/{event_id}"
    described = await client.get_workflow_handle(key).describe()
    assert described.status == WorkflowExecutionStatus.TERMINATED
