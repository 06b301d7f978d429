"""Slack's 3 s ack limit holds when the task is slow and when Temporal is down."""

from __future__ import annotations

import asyncio
import socket
import time
import uuid

from bot.gateway import LazyHarness
from bot.standin import RESPONSE_PATH, SHOWN_SUFFIX
from harness.config import Settings
from harness.domain import TaskSpec
from harness.temporal.client import HarnessClient
from tests.integration.temporal.conftest import PAYLOAD_KEY

from .conftest import TEAM, serve_bot


async def shown_to_sender(slack, key):
    """What the stand-in says Slack would show for one response URL."""
    async with slack.session.get(f"{slack.base}{RESPONSE_PATH}{key}{SHOWN_SUFFIX}") as response:
        return await response.json()


async def test_temporal_down_gets_a_clear_reply_within_3_seconds(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on: Temporal is "stopped"
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = Settings(_env_file=None, temporal_address=f"127.0.0.1:{port}", payload_key=PAYLOAD_KEY)

    async def connect():
        return await HarnessClient.connect(down)

    async for slack in serve_bot(LazyHarness(connect), tmp_path, ack_budget_seconds=2.0):
        started = time.monotonic()
        status, reply = await slack.slash("/model", "gpt-x", user="U0OWNER", channel="C1")
        elapsed = time.monotonic() - started
    assert status == 200 and elapsed < 3.0
    assert reply == (
        "the harness is not reachable right now (its Temporal server did not answer); "
        "nothing was changed — please try again in a minute"
    )


async def test_slow_task_acks_working_then_replies_via_response_url(
    harness, manager, worker, tmp_path
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner="U0OWNER", model="offline"), team=TEAM, channel=channel
    )

    async def slow(ctx):
        await asyncio.sleep(0.6)

    manager.register("command.invoked.pre", slow, priority=200)
    async for slack in serve_bot(harness, tmp_path, ack_budget_seconds=0.2):
        started = time.monotonic()
        status, ack = await slack.slash(
            "/effort", "low", user="U0OWNER", channel=channel, key="slow1"
        )
        assert time.monotonic() - started < 0.6
        assert (status, ack) == (200, "working on `/effort low` …")
        await slack.bot.slash.drain()
        shown = await shown_to_sender(slack, "slow1")
    # A change is public: the private note is deleted and the reply posted for everyone.
    assert shown == {
        "original": "deleted",
        "messages": [{"text": "effort set to `low` (was `medium`)", "response_type": "in_channel"}],
    }
    assert (await harness.snapshot(harness.task_id(TEAM, channel))).effort == "low"


async def test_a_late_private_reply_replaces_the_working_note(harness, manager, worker, tmp_path):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner="U0OWNER", model="offline"), team=TEAM, channel=channel
    )

    async def slow(ctx):
        await asyncio.sleep(0.6)

    manager.register("command.invoked.pre", slow, priority=200)
    async for slack in serve_bot(harness, tmp_path, ack_budget_seconds=0.2):
        _, ack = await slack.slash("/effort", "", user="U0OWNER", channel=channel, key="slow2")
        await slack.bot.slash.drain()
        shown = await shown_to_sender(slack, "slow2")
    assert ack == "working on `/effort` …"
    assert shown == {
        "original": "replaced",
        "messages": [
            {
                "text": "effort: `medium` (choose from low, medium, high)",
                "response_type": "ephemeral",
            }
        ],
    }


async def test_task_that_never_answers_gets_a_timeout_follow_up(harness, tmp_path):
    """No worker polls this task queue: the update cannot finish."""
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(TaskSpec(title="t", owner="U0OWNER"), team=TEAM, channel=channel)
    async for slack in serve_bot(
        harness, tmp_path, ack_budget_seconds=0.2, reply_deadline_seconds=1.0
    ):
        _, ack = await slack.slash("/effort", "low", user="U0OWNER", channel=channel, key="never")
        await slack.bot.slash.drain()
        posted = await slack.responses("never")
    assert ack == "working on `/effort low` …"
    assert [p["text"] for p in posted] == [
        "`/effort` got no answer from the task within 1 s; it was not confirmed — "
        "check `/task status` before trying again"
    ]
