"""With a token, the worker posts the agent's replies where HARNESS_SLACK_API_URL says (issue 11).

A ``python -m harness.worker`` process gets ``SLACK_BOT_TOKEN`` (the bot's variable,
nothing worker-specific) and a recording server as ``HARNESS_SLACK_API_URL``; the
agent's reply to a message must arrive there as ``chat.postMessage`` with the token as
its bearer, and the token must appear in none of the worker's log lines.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from aiohttp import web

from harness.domain import ChannelMessage, TaskSpec

from .conftest import worker_env

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "xoxb-" + uuid.uuid4().hex  # a shape the redactor knows, and a value only this test has


class Recording:
    """Slack's Web API as far as ``channel.sent`` uses it: records method, bearer and body."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, dict]] = []

    async def api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        body = await request.json() if request.content_type == "application/json" else {}
        self.calls.append((method, request.headers.get("Authorization", ""), body))
        if method in ("conversations.replies", "conversations.history"):
            return web.json_response({"ok": True, "messages": [], "has_more": False})
        return web.json_response(
            {"ok": True, "channel": body.get("channel", ""), "ts": f"{time.time():.6f}"}
        )


async def test_the_workers_posts_reach_the_given_api_url_with_the_bots_token(
    settings, harness, tmp_path
):
    recording = Recording()
    app = web.Application()
    app.router.add_post("/api/{method}", recording.api)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    env = worker_env(
        settings, SLACK_BOT_TOKEN=TOKEN, HARNESS_SLACK_API_URL=f"http://127.0.0.1:{port}/api/"
    )
    env.pop("HARNESS_SLACK_BOT_TOKEN", None)
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
        channel = f"C{uuid.uuid4().hex[:8].upper()}"
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T", channel=channel, thread="1.0"
        )
        await harness.send_message(
            ref.task_id,
            ChannelMessage(channel=channel, thread="1.0", user="U1", text="hello there", ts="1.1"),
        )
        async with asyncio.timeout(20):
            while not [c for c in recording.calls if c[0] == "chat.postMessage"]:
                await asyncio.sleep(0.05)
        await harness.finish(ref.task_id)
    finally:
        worker.send_signal(signal.SIGTERM)
        _, rest = await asyncio.to_thread(worker.communicate, timeout=15)
        await runner.cleanup()
    posted = [c for c in recording.calls if c[0] == "chat.postMessage"]
    assert {bearer for _, bearer, _ in posted} == {f"Bearer {TOKEN}"}
    # The offline model's answer to it, once (how the task ended may follow it).
    [body] = [body for _, _, body in posted if "hello there" in body["text"]]
    assert body["channel"] == channel and body["thread_ts"] == "1.0"
    output = "".join(lines) + rest
    assert f"agent replies go to http://127.0.0.1:{port}/api/ (SLACK_BOT_TOKEN)" in output
    assert TOKEN not in output
