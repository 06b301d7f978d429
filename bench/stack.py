"""What the end-to-end benches share: the real stack in processes, and the Temporal floor.

:func:`stack` starts a tuned Temporal dev server, ``python -m harness.worker`` and
``python -m bot`` in local mode (its Web API stand-in records every post), each in its
own process on 127.0.0.1, and stops them afterwards. :class:`FloorWorkflow` is the least
a Temporal-backed message can cost (one update that runs one activity), measured in the
same run as ours so the figures are ratios, not absolute times on a noisy machine.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from temporalio import activity, workflow

from harness.temporal.keys import new_key

ROOT = Path(__file__).resolve().parents[1]
SECRET = "bench-signing-secret"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen, name: str, patience: float = 30) -> None:
    deadline = time.monotonic() + patience
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"{name} exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"{name} did not listen on {port} within {patience:.0f} s")
        time.sleep(0.05)


def temporal_binary() -> str:
    return shutil.which("temporal") or str(Path(sys.executable).with_name("temporal"))


def stats(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
    }


@dataclass(frozen=True)
class Stack:
    """A running stack: where Temporal and the bot listen, and what they share."""

    address: str
    bot_url: str
    queue: str
    payload_key: str
    data: Path
    env: dict[str, str]

    @property
    def bot_base(self) -> str:
        return self.bot_url.removesuffix("/slack/events")


@contextlib.contextmanager
def stack(queue: str, extra_env: dict[str, str] | None = None, *, bot: bool = True,
          extra: Sequence[tuple[Sequence[str], int]] = ()) -> Iterator[Stack]:  # fmt: skip
    """Temporal dev server, worker and (unless ``bot`` is off) the bot; then each ``extra``
    ``(command, port)``, waited for until it listens on its port."""
    payload_key = new_key()  # one for the worker, the bot and the client, as in production
    data = Path(tempfile.mkdtemp(prefix="bench-"))
    temporal_port, bot_port = free_port(), free_port()
    address = f"127.0.0.1:{temporal_port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HARNESS_TEMPORAL_ADDRESS": address,
           "HARNESS_TASK_QUEUE": queue, "HARNESS_DATA_DIR": str(data),
           "HARNESS_PLUGINS": '["commands:plugin"]',
           "BOT_LOCAL": "1", "BOT_SIGNING_SECRET": SECRET, "BOT_PORT": str(bot_port),
           "BOT_BOT_TOKEN": "", "SLACK_BOT_TOKEN": "", "SLACK_APP_TOKEN": "",
           "HARNESS_PAYLOAD_KEY": payload_key, **(extra_env or {})}  # fmt: skip
    log = (data / "processes.log").open("wb")
    procs: list[subprocess.Popen] = []

    def spawn(*command: str) -> subprocess.Popen:
        proc = subprocess.Popen(command, env=env, cwd=data, stdout=log, stderr=subprocess.STDOUT)
        procs.append(proc)
        return proc

    try:
        server = spawn(
            temporal_binary(), "server", "start-dev", "--headless", "--ip", "127.0.0.1",
            "--port", str(temporal_port), "--ui-port", str(free_port()),
            "--db-filename", str(data / "temporal.db"), "--log-level", "error",
            "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
            "--dynamic-config-value", 'history.timerProcessorMaxTimeShift="10ms"',
            "--sqlite-pragma", "journal_mode=WAL", "--sqlite-pragma", "synchronous=NORMAL",
        )  # fmt: skip
        wait_port(temporal_port, server, "temporal dev server")
        spawn(sys.executable, "-m", "harness.worker")
        if bot:
            wait_port(bot_port, spawn(sys.executable, "-m", "bot"), "bot")
        for command, port in extra:
            wait_port(port, spawn(*command), command[-2] if len(command) > 1 else command[0])
        yield Stack(address=address, bot_url=f"http://127.0.0.1:{bot_port}/slack/events",
                    queue=queue, payload_key=payload_key, data=data, env=env)  # fmt: skip
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in reversed(procs):
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


@activity.defn(name="bench-echo")
async def echo(value: str) -> str:
    return value


@workflow.defn(name="bench-floor")
class FloorWorkflow:
    """One update that runs one activity: the least a Temporal-backed command can cost."""

    def __init__(self) -> None:
        self.done = False

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self.done)

    @workflow.update
    async def touch(self, value: str) -> str:
        return await workflow.execute_activity(
            echo, value, start_to_close_timeout=timedelta(seconds=10)
        )

    @workflow.signal
    def stop(self) -> None:
        self.done = True
