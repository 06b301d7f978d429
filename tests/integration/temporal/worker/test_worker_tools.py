"""The same tools on every worker (issue 13): a tool server that cannot be listed holds the start.

A real MCP tool server (tests/support/mcp_tool_server.py) that exits at once until its
gate file exists: the worker's ``/readyz`` answers 503 naming the server, nothing polls
the task queue (a task started meanwhile waits), the worker keeps trying, and once the
server starts the worker becomes ready and the task gets the server's tools.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from temporalio.api.enums.v1 import EventType

from harness.domain import ChannelMessage, TaskSpec
from harness.health import health_server
from harness.temporal.worker import serve
from harness.temporal.worker.readiness import WorkerReadiness

SERVER = Path(__file__).parents[3] / "support" / "mcp_tool_server.py"


@pytest.fixture
def settings(settings, tmp_path):
    """One tool server, which exits at once until ``tmp_path / "gate"`` exists."""
    return settings.model_copy(
        update={
            "mcp_tool_servers": {
                "gated": [sys.executable, str(SERVER), "--gate", str(tmp_path / "gate")]
            },
            "mcp_list_max_backoff_seconds": 0.3,
        }
    )


async def readyz(session: aiohttp.ClientSession, port: int) -> tuple[int, dict]:
    async with session.get(f"http://127.0.0.1:{port}/readyz") as response:
        return response.status, await response.json()


def posts(slack_api, channel: str) -> list[str]:
    return [
        a["text"]
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == channel
    ]


async def test_a_tool_server_not_listed_keeps_the_worker_unready_until_it_is(
    client, settings, manager, harness, slack_api, tmp_path, caplog
):
    caplog.set_level(logging.WARNING, logger="harness.bodies.runtime")
    caplog.set_level(logging.INFO, logger="harness.temporal.worker.entry")
    stop = asyncio.Event()
    readiness = WorkerReadiness(stop)
    async with health_server("127.0.0.1", 0, readiness) as port, aiohttp.ClientSession() as session:
        serving = asyncio.create_task(
            serve(settings, stop, client=client, manager=manager, readiness=readiness)
        )
        try:
            async with asyncio.timeout(30):  # each attempt spawns a Python process (~2 s)
                while ", 2 attempts" not in (await readyz(session, port))[1].get("reason", ""):
                    await asyncio.sleep(0.05)
            status, body = await readyz(session, port)
            assert status == 503 and body["reason"].startswith(
                "starting: MCP tool server gated not listed yet, "
            )
            assert str(SERVER) not in body["reason"]  # the target stays in the log
            ref = await harness.start_task(
                TaskSpec(title="tools", owner="U1"), team="T", channel="CTOOLS", thread="1.0"
            )
            await asyncio.sleep(1.0)  # a polling worker would have taken its first workflow task
            assert readiness.worker is None and not serving.done()
            history = await client.get_workflow_handle(ref.task_id).fetch_history()
            scheduled = EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED
            assert [e.event_type for e in history.events][1:] == [scheduled]  # nobody took it
            (tmp_path / "gate").touch()
            async with asyncio.timeout(30):
                while (await readyz(session, port))[0] != 200:
                    await asyncio.sleep(0.05)
            message = ChannelMessage(
                channel="CTOOLS",
                thread="1.0",
                user="U1",
                ts="1.1",
                text='call gated__shout {"text": "all here"}',
            )
            await harness.send_message(ref.task_id, message)
            deadline = time.monotonic() + 20
            while not posts(slack_api, "CTOOLS"):
                assert time.monotonic() < deadline, "no reply"
                await asyncio.sleep(0.05)
            assert posts(slack_api, "CTOOLS") == ["Tool results:\n- gated__shout: ALL HERE!"]
            await harness.finish(ref.task_id)
            await harness.outcome(ref.task_id)
        finally:
            stop.set()
            await asyncio.wait_for(serving, 10)
    retries = [r for r in caplog.records if "MCP tool server gated not listed" in r.getMessage()]
    assert len(retries) >= 2
    [started] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("worker on")]
    assert started.endswith(", worker versioning off (no HARNESS_DEPLOYMENT_NAME)")


async def test_a_stop_while_listing_ends_the_start_at_once(client, settings, manager):
    stop = asyncio.Event()
    readiness = WorkerReadiness(stop)
    serving = asyncio.create_task(
        serve(settings, stop, client=client, manager=manager, readiness=readiness)
    )
    async with asyncio.timeout(30):
        while "attempts failed" not in (await readiness() or ""):
            await asyncio.sleep(0.05)
    started = time.monotonic()
    stop.set()
    assert await asyncio.wait_for(serving, 5) is not None
    assert time.monotonic() - started < 2
    assert readiness.worker is None  # it never polled
