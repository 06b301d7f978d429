"""Worker versioning on the session's dev server: the settings reach the worker, and a task
moves to the new build once it is made current (AUTO_UPGRADE), its old build gone.

The dev server (Temporal 1.32) runs worker deployments as a cluster does; a version is
made current through the same API ``temporal worker deployment set-current-version`` calls.
"""

from __future__ import annotations

import asyncio
import time
from uuid import uuid4

import pytest
from pydantic import ValidationError
from temporalio.api.workflowservice.v1 import SetWorkerDeploymentCurrentVersionRequest
from temporalio.client import Client
from temporalio.common import VersioningBehavior
from temporalio.service import RPCError

from harness.config import Settings
from harness.domain import ChannelMessage, TaskRef, TaskSpec
from harness.hooks.contexts import RequestReceivedContext
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.client import HarnessClient
from harness.temporal.worker import build_worker
from harness.temporal.worker.deployment import build_id, deployment_config, describe


def test_versioning_is_off_unless_a_deployment_is_named(settings):
    assert deployment_config(settings) is None
    assert describe(settings) == "worker versioning off (no HARNESS_DEPLOYMENT_NAME)"
    named = settings.model_copy(update={"deployment_name": "harness"})
    assert build_id(named) == build_id(settings) != ""  # the package's version
    config = deployment_config(named)
    assert config is not None and config.use_worker_versioning
    assert config.version.to_canonical_string() == f"harness.{build_id(settings)}"
    assert config.default_versioning_behavior == VersioningBehavior.AUTO_UPGRADE
    assert describe(named) == f"worker deployment version harness.{build_id(settings)}"


@pytest.mark.parametrize(
    "field, value",
    [("deployment_name", "a.b"), ("build_id", "x y"), ("deployment_name", "x" * 101)],
)
def test_a_name_temporal_cannot_take_is_refused_by_the_settings(field, value):
    with pytest.raises(ValidationError, match=field):
        Settings(_env_file=None, **{field: value})  # type: ignore[call-arg]


async def test_the_deployment_settings_reach_the_worker(client, settings, manager):
    named = settings.model_copy(update={"deployment_name": "harness", "build_id": "b-7"})
    config = build_worker(client, named, HarnessActivities(manager)).config()
    version = config["deployment_config"].version
    assert (version.deployment_name, version.build_id) == ("harness", "b-7")
    assert (
        build_worker(client, settings, HarnessActivities(manager)).config().get("deployment_config")
        is None
    )


async def make_current(client: Client, deployment: str, build: str) -> None:
    """Make ``deployment.build`` current, once its worker has polled (the server knows it)."""
    deadline = time.monotonic() + 20
    while True:
        try:
            await client.workflow_service.set_worker_deployment_current_version(
                SetWorkerDeploymentCurrentVersionRequest(
                    namespace=client.namespace, deployment_name=deployment, build_id=build
                )
            )
            return
        except RPCError:
            assert time.monotonic() < deadline, f"{deployment}.{build} never polled"
            await asyncio.sleep(0.2)


async def versioning(client: Client, workflow_id: str) -> tuple[int, str]:
    info = (await client.get_workflow_handle(workflow_id).describe()).raw_description
    versioning = info.workflow_execution_info.versioning_info
    return versioning.behavior, versioning.deployment_version.build_id


async def test_a_task_and_its_requests_move_to_the_current_build(client, settings, manager):
    """A rolling deploy: b2 starts beside b1, b2 is made current, b1 stops; the task goes on."""
    deployment = f"d{uuid4().hex[:8]}"
    old, new = (
        settings.model_copy(update={"deployment_name": deployment, "build_id": b})
        for b in ("b1", "b2")
    )
    harness = HarnessClient(client, settings)
    task_id = harness.task_id("T", "CVER")
    upgrading = VersioningBehavior.AUTO_UPGRADE
    async with build_worker(client, new, HarnessActivities(manager)):
        async with build_worker(client, old, HarnessActivities(manager)):
            await make_current(client, deployment, "b1")
            first = await harness.receive(
                RequestReceivedContext(
                    task=TaskRef(task_id=task_id, team="T", channel="CVER"),
                    correlation_id="event/1.1",
                    text="hello",
                    sender="U1",
                    channel="CVER",
                    thread="1.1",
                    event_id="1.1",
                    ts="1.1",
                )
            )
            assert (first.task_id, first.started, first.position) == (task_id, True, 1)
            assert await versioning(client, f"request/{task_id}/event/1.1") == (upgrading, "b1")
            assert await versioning(client, task_id) == (upgrading, "b1")
            await make_current(client, deployment, "b2")
        # b1 is gone: a task pinned to it would wait for it forever.
        again = ChannelMessage(
            channel="CVER", thread="1.1", user="U1", text="still there?", ts="1.2"
        )
        assert await harness.send_message(task_id, again) == 2
        assert await versioning(client, task_id) == (upgrading, "b2")
        await harness.finish(task_id)
        await harness.outcome(task_id)
        assert [m.text for m in await harness.transcript(task_id)] == ["hello", "still there?"]


async def test_turning_versioning_on_moves_a_running_task_to_the_current_version(
    client, settings, manager
):
    harness = HarnessClient(client, settings)
    task_id = harness.task_id("T", "CTURN")
    ref = TaskRef(task_id=task_id, team="T", channel="CTURN")

    def message(text: str, ts: str) -> ChannelMessage:
        return ChannelMessage(channel="CTURN", thread="1.0", user="U1", text=text, ts=ts)

    async with build_worker(client, settings, HarnessActivities(manager)):  # unversioned
        await harness.start_task(
            TaskSpec(title="turn", owner="U1"), team=ref.team, channel=ref.channel, thread="1.0"
        )
        assert await harness.send_message(task_id, message("before", "1.1")) == 1
        assert (await versioning(client, task_id))[1] == ""
    deployment = f"d{uuid4().hex[:8]}"
    versioned = settings.model_copy(update={"deployment_name": deployment, "build_id": "b1"})
    async with build_worker(client, versioned, HarnessActivities(manager)):
        await make_current(client, deployment, "b1")
        assert await harness.send_message(task_id, message("after", "1.2")) == 2
        assert await versioning(client, task_id) == (VersioningBehavior.AUTO_UPGRADE, "b1")
        await harness.finish(task_id)
        await harness.outcome(task_id)
