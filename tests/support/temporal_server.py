"""The session's Temporal dev server, its client and the payload key they share (issue 3).

One dev server per test session (per xdist worker), whatever tier asks for it: the
integration tier (``tests/integration/temporal``) and the bot's scenarios
(``tests/scenario/bot``) both take these fixtures, registered once by the root conftest's
``pytest_plugins``; before, each tier's conftest defined its own copy, and a worker running
both tiers started two servers and two clients. A task queue per test keeps tests apart.

The server is :class:`tests.support.dev_server.DevServer` (the ``temporal`` binary run as a
subprocess, tuned for short waits).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from uuid import uuid4

import pytest
from temporalio.client import Client

from harness.config import Settings
from harness.storage import PayloadStore, database_url
from harness.temporal.client.harness_client import rpc_retries
from harness.temporal.codec import data_converter
from harness.temporal.keys import new_key, parse_keys
from tests.support.dev_server import DevServer

PAYLOAD_KEY = new_key()
"""The session's one payload key (fresh each run): the ``settings`` and the ``client`` share it."""
PAYLOADS_DB = Path(tempfile.gettempdir()) / f"harness-payloads-{uuid4().hex}.sqlite3"
"""Where the session's client and in-process workers put payloads over the inline bound (one
file for the session, as the client is one; each test's own database is its ``settings``')."""
PAYLOADS = PayloadStore(database_url("", PAYLOADS_DB), migrate=True)
DATA_CONVERTER = data_converter(parse_keys(PAYLOAD_KEY), PAYLOADS)
RPC_RETRIES = rpc_retries(Settings.model_fields["temporal_rpc_seconds"].default)
"""The session client retries as :meth:`HarnessClient.connect`'s does (the setting's default):
a request past a task's in-flight limit is told busy in 1.5 s, not the SDK's 10 s."""


@pytest.fixture(scope="session")
def temporal_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dev server's SQLite file (``-wal`` beside it): what Temporal keeps at rest."""
    return tmp_path_factory.mktemp("temporal") / "temporal.db"


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
            return await Client.connect(
                temporal_address, data_converter=DATA_CONVERTER, retry_config=RPC_RETRIES
            )
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)
