"""``make run``'s Procfile, as a user runs it on moved ports (issue 11, point 1).

README's "ports taken?" recipe moves the dev server and the bot. Before issue 11 the
worker kept posting the agent's replies to the stand-in on port 3000 and gave up,
while ``/status`` said "running". Here honcho starts the Procfile itself (dev server,
worker, bot) with nothing but the recipe's variables, ``bot.say`` mentions the bot as
a user would, and the agent's reply must arrive in the moved bot's stand-in.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp

from bot.standin import POSTS_PATH
from harness.channels.slack import POST_EVENT_TYPE

from .bot.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def procfile_env(tmp_path: Path) -> dict[str, str]:
    """The recipe's variables on free ports, nothing else of ours (no Slack, no API URL)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARNESS_", "SLACK_", "BOT_", "TEMPORAL_"))
    }
    temporal = free_port()
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        TEMPORAL_PORT=str(temporal),
        TEMPORAL_UI_PORT=str(free_port()),
        HARNESS_TEMPORAL_ADDRESS=f"127.0.0.1:{temporal}",
        BOT_PORT=str(free_port()),
        HARNESS_DATA_DIR=str(tmp_path),
    )
    return env


async def posts(session: aiohttp.ClientSession, port: str) -> list[dict]:
    try:
        async with session.get(f"http://127.0.0.1:{port}{POSTS_PATH}") as response:
            return await response.json() if response.status == 200 else []
    except aiohttp.ClientError:
        return []


async def test_on_moved_ports_the_agents_reply_reaches_the_moved_bot(tmp_path: Path) -> None:
    env = procfile_env(tmp_path)
    subprocess.run(
        [sys.executable, "-m", "harness.temporal.keys", "ensure", str(tmp_path / "payload.key")],
        env=env,
        check=True,
        cwd=ROOT,
    )
    log = (tmp_path / "honcho.log").open("w")
    procs = subprocess.Popen(
        [str(BIN / "honcho"), "start", "-f", "Procfile"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        async with aiohttp.ClientSession() as session:
            deadline = time.monotonic() + 60
            while not await posts(session, env["BOT_PORT"]) and not await _listening(
                session, env["BOT_PORT"]
            ):
                assert procs.poll() is None, (tmp_path / "honcho.log").read_text()
                assert time.monotonic() < deadline, (tmp_path / "honcho.log").read_text()
                await asyncio.sleep(0.3)
            said = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "bot.say", "--user", "U1", "what is 2 + 3?"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert said.returncode == 0, said.stdout + said.stderr
            assert "task started" in said.stdout or "bot in thread" in said.stdout, said.stdout
            deadline = time.monotonic() + 60
            while True:  # the worker's post carries the harness's metadata; the bot's do not
                agent = [
                    p
                    for p in await posts(session, env["BOT_PORT"])
                    if (p.get("metadata") or {}).get("event_type") == POST_EVENT_TYPE
                ]
                if agent:
                    break
                assert time.monotonic() < deadline, (tmp_path / "honcho.log").read_text()
                await asyncio.sleep(0.2)
            assert agent[0].get("text"), json.dumps(agent[0])
            assert agent[0]["text"] in said.stdout  # bot.say waited for the task's answer too
            # The dev server's Web UI is up on loopback, and /task status links the task there.
            ui = f"http://127.0.0.1:{env['TEMPORAL_UI_PORT']}"
            async with session.get(ui + "/") as response:
                assert response.status == 200
            status = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "bot.say", "--user", "U1", "/task status"],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert f"<{ui}/namespaces/default/workflows/task%2F" in status.stdout, status.stdout
    finally:
        os.killpg(procs.pid, signal.SIGINT)
        try:
            procs.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(procs.pid, signal.SIGKILL)
            procs.wait()
        log.close()
    text = (tmp_path / "honcho.log").read_text()
    assert f"agent replies go to http://127.0.0.1:{env['BOT_PORT']}/_local/api/" in text
    # Ctrl-C: honcho sends SIGTERM; each process (exec'd, not under a shell) stops cleanly.
    assert "worker.1 stopped (rc=0)" in text and "bot.1 stopped (rc=0)" in text, text


async def _listening(session: aiohttp.ClientSession, port: str) -> bool:
    try:
        async with session.get(f"http://127.0.0.1:{port}/") as response:
            return response.status < 500
    except aiohttp.ClientError:
        return False


def test_json_in_env_that_honcho_unquotes_is_refused_with_the_fix(tmp_path: Path) -> None:
    """``.env`` JSON written as in a shell loses its quotes under honcho (issue 26)."""
    env = procfile_env(tmp_path)
    dotenv = tmp_path / ".env"
    dotenv.write_text('HARNESS_MODELS=["offline", "gpt-4o"]\n')
    ran = subprocess.run(
        [str(BIN / "honcho"), "start", "-f", str(ROOT / "Procfile"), "-e", str(dotenv), "worker"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = ran.stdout + ran.stderr
    assert "worker not starting: HARNESS_MODELS must be JSON (" in said, said
    assert "single quotes" in said and "worker.1 stopped (rc=2)" in said, said

    dotenv.write_text("""HARNESS_MODELS='["offline", "gpt-4o"]'\nHARNESS_HEALTH_PORT=x\n""")
    ran = subprocess.run(
        [str(BIN / "honcho"), "start", "-f", str(ROOT / "Procfile"), "-e", str(dotenv), "worker"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = ran.stdout + ran.stderr
    assert "HARNESS_MODELS" not in said and "HARNESS_HEALTH_PORT" in said, said  # quoted: read
