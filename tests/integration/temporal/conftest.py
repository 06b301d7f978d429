"""Real Temporal for the integration tests: one dev server per session, a task queue per test.

The session's dev server, its client and payload key are :mod:`tests.support.temporal_server`'s
(registered by the root conftest, so the bot's scenarios share the same server); here are
what a test of this tier builds on them: its settings, store, hook manager and worker.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from uuid import uuid4

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Replayer, Worker

from bot.standin import SlackStandIn, served
from bot.testing.stack import free_port
from harness.agent.profiles import AgentProfile
from harness.config import Settings
from harness.hooks import PHASES, HookContext, HookManager
from harness.storage import open_database
from harness.storage.artefacts import SqlArtefactStore
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.client import HarnessClient
from harness.temporal.worker import build_manager, build_worker, retry_limits
from harness.temporal.workflow.request import RequestWorkflow
from harness.temporal.workflow.task import TaskWorkflow
from tests.support.temporal_server import (  # what this tier's tests import from here
    DATA_CONVERTER,
    PAYLOAD_KEY,
    DevServer,
)

__all__ = ["DATA_CONVERTER", "PAYLOAD_KEY", "DevServer", "free_port"]

ROOT = Path(__file__).resolve().parents[3]


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
        workflow_task_timeout_seconds=3,  # a killed worker's workflow task, not 10 s
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
