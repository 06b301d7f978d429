"""The worker and its database (issue 13): one it cannot reach stops the start in one line, and
``/readyz`` says so when the database stops answering a running worker."""

from __future__ import annotations

import asyncio
import socket

from sqlalchemy.ext.asyncio import create_async_engine

from harness.storage import Database, open_database
from harness.temporal.worker.readiness import WorkerReadiness

from .test_worker_start import refusal, worker_env


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_an_unreachable_database_is_one_line_without_its_password(tmp_path):
    port = closed_port()
    url = f"postgresql://harness:pw-n0t-shown@127.0.0.1:{port}/harness"
    line = await refusal(worker_env(tmp_path, HARNESS_DATABASE_URL=url))
    assert line.startswith("postgresql+asyncpg://harness:"), line  # the password masked
    assert f"@127.0.0.1:{port}/harness: the database failed" in line
    assert "pw-n0t-shown" not in line


async def test_readyz_reports_a_database_that_stops_answering(worker, settings):
    readiness = WorkerReadiness(asyncio.Event())
    readiness.worker = worker
    database = await open_database(settings.database)
    try:
        readiness.database = database
        assert await readiness() is None  # polling, and the database answers
    finally:
        await database.aclose()
    gone = Database(create_async_engine(f"postgresql+asyncpg://h:pw@127.0.0.1:{closed_port()}/x"))
    try:
        readiness.database = gone
        reason = await readiness()
    finally:
        await gone.aclose()
    assert reason == f"database {gone.describe()} does not answer" and "pw" not in reason
