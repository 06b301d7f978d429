"""A slash command to a task at its in-flight limit gets a "busy" reply, not "unreachable"."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from harness.domain import TaskSpec
from harness.hooks.contexts import CommandInvokedContext
from tests.integration.temporal.test_busy import LIMIT, Gate

from .conftest import TEAM, serve_bot

OWNER = "U0OWNER"


@pytest.fixture
def settings(settings):
    """Held activities must outlive the client's retries of the eleventh update."""
    return settings.model_copy(update={"activity_start_to_close_seconds": 60})


async def test_a_command_past_the_in_flight_limit_says_the_task_is_busy(
    harness, manager, worker, tmp_path
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    ref = await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    gate = Gate()
    manager.register("command.invoked.pre", gate, priority=200)
    held = [
        asyncio.create_task(
            harness.send_command(
                CommandInvokedContext(
                    task=ref, command="effort", args="low", sender=OWNER, correlation_id=f"hold/{n}"
                )
            )
        )
        for n in range(LIMIT)
    ]
    await gate.until_held(LIMIT)
    try:
        async for slack in serve_bot(
            harness, tmp_path, ack_budget_seconds=0.2, reply_deadline_seconds=40
        ):
            status, ack = await slack.slash(
                "/model", "gpt-x", user=OWNER, channel=channel, key="busy"
            )
            await slack.bot.slash.drain()
            posted = await slack.responses("busy")
    finally:
        gate.open.set()
        await asyncio.gather(*held)
    assert (status, ack) == (200, "working on `/model gpt-x` …")
    assert [p["text"] for p in posted] == [
        f"this task is busy with {LIMIT} other requests, so `/model` was not applied; "
        "nothing was changed — try again in a moment"
    ]
    assert posted[0]["response_type"] == "ephemeral"
    snapshot = await harness.snapshot(ref.task_id)
    assert (snapshot.model, snapshot.effort) == ("offline", "low")
