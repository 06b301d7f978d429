"""The bot as a service: ``/healthz``, ``/readyz``, and SIGTERM draining the replies still owed.

Over real HTTP against the real bot; readiness asks a real Temporal (the session's
dev server, or an address where nothing listens). The shutdown test runs
``python -m bot`` as a subprocess in front of a real worker whose command is held
until after the signal: the late reply still reaches the stand-in, and the bot
exits 0 within its grace.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
import uuid

import aiohttp
from aiohttp import web

from bot.app import build_app, build_web_app
from bot.config import BotSettings
from bot.gateway import LazyHarness
from harness.domain import TaskSpec
from harness.temporal.client import HarnessClient
from tests.integration.temporal.test_busy import Gate

from .conftest import TEAM, Slack, free_port
from .test_start import ROOT, bot_env

OWNER = "U0OWNER"


async def get(session: aiohttp.ClientSession, url: str) -> tuple[int, dict]:
    async with session.get(url) as response:
        return response.status, await response.json()


async def test_readyz_says_whether_temporal_answers_and_goes_false_while_draining(
    harness, settings, tmp_path
):
    async def connected() -> HarnessClient:
        return harness

    down = settings.model_copy(update={"temporal_address": f"127.0.0.1:{free_port()}"})

    async def unreachable() -> HarnessClient:
        return await HarnessClient.connect(down)

    port = free_port()
    bot_settings = BotSettings(
        _env_file=None,
        local=True,
        port=port,
        data_dir=tmp_path,
        signing_secret=Slack.signing_secret,
    )
    base = f"http://127.0.0.1:{port}"
    for connect, expected in ((unreachable, 503), (connected, 200)):
        lazy = LazyHarness(connect, connect_timeout=settings.temporal_rpc_seconds)
        bot = build_app(bot_settings, lazy)
        runner = web.AppRunner(build_web_app(bot_settings, bot, ready=lazy.ready))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        try:
            async with aiohttp.ClientSession() as session:
                assert await get(session, base + "/healthz") == (200, {"status": "ok"})
                status, body = await get(session, base + "/readyz")
                assert status == expected, body
                if expected == 503:
                    assert body["status"] == "not ready"
                    assert body["reason"].startswith("Temporal not reachable: ")
                    continue
                assert body == {"status": "ready"}
                bot.lifecycle.stop_accepting()
                assert await get(session, base + "/readyz") == (
                    503,
                    {"status": "not ready", "reason": "shutting down"},
                )
                slack = Slack(base + "/slack/events", session, bot)
                assert await slack.slash("/effort", "high", user=OWNER, channel="C1") == (
                    503,
                    "shutting down",
                )
                assert await get(session, base + "/healthz") == (200, {"status": "ok"})
        finally:
            await runner.cleanup()


async def test_sigterm_delivers_the_reply_still_owed_then_exits_0_within_the_grace(
    harness, manager, worker, settings, tmp_path
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    ref = await harness.start_task(TaskSpec(title="t", owner=OWNER), team=TEAM, channel=channel)
    gate = Gate()  # holds every command in the worker until opened
    manager.register("command.invoked.pre", gate, priority=200)
    port, grace = free_port(), 10.0
    env = bot_env(
        tmp_path,
        BOT_PORT=str(port),
        SLACK_SIGNING_SECRET=Slack.signing_secret,
        HARNESS_TEMPORAL_ADDRESS=settings.temporal_address,
        HARNESS_TASK_QUEUE=settings.task_queue,
        BOT_ACK_BUDGET_SECONDS="0.2",
        BOT_SHUTDOWN_GRACE_SECONDS=str(grace),
    )
    bot = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert bot.stderr is not None
    try:
        async with asyncio.timeout(30):
            while b"bot listening" not in (line := await bot.stderr.readline()):
                assert line, "the bot exited"
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession() as session:
            assert (await get(session, base + "/readyz"))[0] == 200
            slack = Slack(base + "/slack/events", session, None)  # type: ignore[arg-type]
            status, ack = await slack.slash(
                "/effort", "high", user=OWNER, channel=channel, key="late"
            )
            assert (status, ack) == (200, "working on `/effort high` …")
            await gate.until_held(1)

            bot.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            async with asyncio.timeout(5):  # readiness goes false at once, new requests refused
                while (await get(session, base + "/readyz"))[0] != 503:
                    await asyncio.sleep(0.02)
            status, _ = await slack.slash("/effort", "low", user=OWNER, channel=channel)
            assert status == 503
            assert bot.returncode is None  # still draining: the reply is owed
            gate.open.set()
            out, err = await asyncio.wait_for(bot.communicate(), grace + 5)
    finally:
        if bot.returncode is None:
            bot.kill()
            await bot.wait()
    log = err.decode()
    assert bot.returncode == 0, log
    assert time.monotonic() - signalled < grace
    assert "[slack stand-in] response: effort set to `high` (was `medium`)" in out.decode()
    assert "stopped: every reply owed was sent" in log and "Traceback" not in log
    assert (await harness.snapshot(ref.task_id)).effort == "high"  # low was refused, not applied
