"""Temporal down is said plainly and quickly (issue 10): the dev server is stopped and restarted.

A bot, a worker and a client are connected to their own dev server; the server is
stopped mid-scenario. A slash command and a thread reply are answered within Slack's
3 s with "not reachable; nothing was changed", and after the server comes back (same
port, same database) nothing of what was refused has been applied.
"""

from __future__ import annotations

import asyncio
import time
import uuid

from temporalio.client import Client

from bot.replies import UNREACHABLE
from harness.domain import TaskSpec
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.client import HarnessClient
from harness.temporal.worker import build_manager, build_worker, retry_limits
from tests.integration.temporal.conftest import DATA_CONVERTER, DevServer

from .conftest import TEAM, serve_bot

OWNER = "U0OWNER"


async def test_a_stopped_server_is_said_within_3_seconds_and_nothing_applies_later(
    settings, store, tmp_path
):
    server = DevServer(tmp_path / "outage.db").start()
    settings = settings.model_copy(update={"temporal_address": server.address})
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    try:
        harness = await HarnessClient.connect(settings)
        worker_client = await Client.connect(server.address, data_converter=DATA_CONVERTER)
        manager = build_manager(settings, store.database)
        from commands import register_all

        register_all(manager, models=("offline",))
        activities = HarnessActivities(
            manager, heartbeat_seconds=0.5, retry_limits=retry_limits(settings)
        )
        async with build_worker(worker_client, settings, activities):
            ref = await harness.start_task(
                TaskSpec(title="t", owner=OWNER), team=TEAM, channel=channel, thread="8.0"
            )
            async for slack in serve_bot(harness, tmp_path):
                await slack.bot.ledger.bind(f"{TEAM}/{channel}/8.0", ref.task_id)
                status, reply = await slack.slash("/effort", "low", user=OWNER, channel=channel)
                assert (status, reply) == (200, "effort set to `low` (was `medium`)")

                server.stop()
                started = time.monotonic()
                status, reply = await slack.slash("/effort", "high", user=OWNER, channel=channel)
                assert time.monotonic() - started < 3.0
                assert (status, reply) == (200, UNREACHABLE)

                started = time.monotonic()
                status, _ = await slack.event(
                    "message_in_thread.json",
                    channel=channel,
                    thread_ts="8.0",
                    ts="8.1",
                    user=OWNER,
                    event_id="EvOUT1",
                    text="are you there",
                )
                assert status == 200 and time.monotonic() - started < 3.0
                said = [
                    a["text"]
                    for m, a in slack.bot.standin.calls
                    if m == "chat.postMessage" and a.get("channel") == channel
                ]
                assert said and said[-1].endswith(UNREACHABLE.split("; ")[-1])

                server.start()  # the same port and database: the server was only down
                async with asyncio.timeout(20):
                    while True:
                        try:
                            snapshot = await harness.snapshot(ref.task_id)
                            break
                        except Exception:
                            await asyncio.sleep(0.1)
                assert snapshot.effort == "low"  # the refused /effort high never applied
                assert [m.text for m in await harness.transcript(ref.task_id)] == []
                status, reply = await slack.slash("/effort", "medium", user=OWNER, channel=channel)
                assert reply == "effort set to `medium` (was `low`)"
                await harness.finish(ref.task_id)
                await asyncio.wait_for(harness.outcome(ref.task_id), 20)
        await manager.aclose()
    finally:
        server.stop()
