"""A command the task does not answer in time says so, and that it may still be applied.

Temporal reports an update whose wait ran out, or whose caller went away, as
``WorkflowUpdateRPCTimeoutOrCancelledError``; users used to read that name. Now
:class:`HarnessClient` raises :class:`TaskTimedOut` for a timeout and gives a
caller's own cancellation back as cancellation. Real dev server, real worker with
the commands plugin, and the real bot for the reply a user reads.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from harness.domain import TaskSpec
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal.client import HarnessClient
from harness.temporal.client.error_mapping import TIMED_OUT
from harness.temporal.errors import TaskTimedOut
from tests.integration.temporal.test_busy import Gate

from .conftest import TEAM, serve_bot

OWNER = "U0OWNER"


@pytest.fixture
def settings(settings):
    return settings.model_copy(update={"update_timeout_seconds": 1.0})


async def effort_applied(harness, task_id: str, effort: str, model: str = "") -> None:
    deadline = time.monotonic() + 10
    while True:
        snapshot = await harness.snapshot(task_id)
        if snapshot.effort == effort and snapshot.model == (model or snapshot.model):
            return
        assert time.monotonic() < deadline, f"never applied: {effort} {model}"
        await asyncio.sleep(0.05)


async def test_a_command_that_outlives_the_update_timeout_may_still_apply(
    harness, manager, worker, client, settings, tmp_path
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    ref = await harness.start_task(TaskSpec(title="t", owner=OWNER), team=TEAM, channel=channel)
    gate = Gate()
    manager.register("command.invoked.pre", gate, priority=200)

    started = time.monotonic()
    with pytest.raises(TaskTimedOut) as caught:
        await harness.send_command(
            CommandInvokedContext(task=ref, command="effort", args="high", sender=OWNER)
        )
    assert 0.9 < time.monotonic() - started < 5
    assert caught.value.reason == TIMED_OUT
    assert str(caught.value) == (
        f"task {ref.task_id}: the task did not answer in time; "
        "your request may still be applied — check /task status before trying again"
    )
    gate.open.set()
    await effort_applied(harness, ref.task_id, "high")  # "may still be applied": it was

    # Through the bot: the reply names the command and says to look before retrying.
    gate.open.clear()
    async for slack in serve_bot(harness, tmp_path, ack_budget_seconds=2.5):
        status, ack = await slack.slash("/effort", "low", user=OWNER, channel=channel)
    assert (status, ack) == (
        200,
        "the task did not answer `/effort` in time; it may still be "
        "applied — check `/task status` before trying again",
    )
    gate.open.set()
    await effort_applied(harness, ref.task_id, "low")

    # A caller's own deadline or cancellation stays a deadline or cancellation.
    gate.open.clear()
    patient = HarnessClient(client, settings.model_copy(update={"update_timeout_seconds": None}))
    medium = CommandInvokedContext(task=ref, command="effort", args="medium", sender=OWNER)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.5):
            await patient.send_command(medium)
    sending = asyncio.create_task(
        patient.send_command(
            medium.model_copy(
                update={"command": "model", "args": "gpt-x", "correlation_id": "cancelled"}
            )
        )
    )
    await asyncio.sleep(0.3)
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    gate.open.set()
    await effort_applied(harness, ref.task_id, "medium", "gpt-x")  # both applied in the end
