"""The worker entry point: plugins registered and logged, graceful shutdown runs ``shutdown``."""

from __future__ import annotations

import asyncio
import importlib.abc
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

from harness.domain import TaskSpec, TaskStatus
from harness.hooks.catalogue import OPERATIONS, entry_of
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.worker import build_worker, describe, serve

from ..conftest import assert_replays, worker_env

ROOT = Path(__file__).resolve().parents[4]


async def test_stopping_runs_shutdown_with_the_work_in_flight_and_loses_nothing(
    client, settings, harness, manager, recorder
):
    recorder.attach(manager, ["shutdown", "task.complete"])
    entered, stop = asyncio.Event(), asyncio.Event()

    async def slow_complete(ctx):
        entered.set()
        await stop.wait()  # in flight when the worker is told to stop ...
        await asyncio.sleep(0.3)  # ... and shorter than the 1 s grace: it finishes

    manager.register("task.complete.pre", slow_complete)
    serving = asyncio.create_task(serve(settings, stop, client=client, manager=manager))
    ref = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel="S1")
    await harness.finish(ref.task_id, summary="bye")
    await asyncio.wait_for(entered.wait(), 10)
    stop.set()
    note = await asyncio.wait_for(serving, 10)

    assert note == "worker stopping (stop requested); 1 activities in flight"
    [seen] = recorder.seen("shutdown.in")
    assert seen.in_flight == 1
    # The in-flight activity finished within the grace period; the next worker completes the task.
    async with build_worker(client, settings, HarnessActivities(manager)):
        outcome = await asyncio.wait_for(harness.outcome(ref.task_id), 10)
    assert outcome.status == TaskStatus.SUCCEEDED
    assert [c.result for c in recorder.seen("task.complete.post")] == [
        f"{ref.task_id} succeeded: bye"
    ]
    await assert_replays(client, [ref.task_id])


def test_describe_lists_the_builtin_bodies_in_run_order(manager):
    lines = describe(manager)
    assert (
        "persistence.write.in 1000 harness.bodies.persistence.PersistenceBodies.persistence_write"
        in lines
    )
    # Every row that says body has its default body (command.invoked's are the commands plugin's).
    with_body = [line.split(".in ", 1)[0] for line in lines if ".in 1000 " in line]
    assert set(with_body) == {op for op in OPERATIONS if entry_of(op).body}
    assert len([line for line in lines if " 1000 " in line]) == len(with_body)
    # The worker's loop defaults answer their own persistence.read key before the store.
    assert any(line.startswith("persistence.read.in 900 ") for line in lines)


async def test_python_m_harness_worker_logs_registrations_and_stops_on_sigterm(settings, tmp_path):
    env = worker_env(
        settings,
        HARNESS_PLUGINS=json.dumps(["tests.integration.temporal.plugins:crash_plugin"]),
        HARNESS_TEST_LOG=str(tmp_path / "log"),
        HARNESS_TEST_MARKER=str(tmp_path / "marker"),
    )
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    while worker.poll() is None:
        line = await asyncio.to_thread(worker.stderr.readline)
        lines.append(line)
        if "task queue" in line:
            break
    worker.send_signal(signal.SIGTERM)
    _, rest = await asyncio.to_thread(worker.communicate, timeout=15)
    output = "".join(lines) + rest
    assert worker.returncode == 0, output
    assert "registered task.created.in 1000 harness.bodies.task.TaskBodies.task_created" in output
    assert (
        "registered command.invoked.in 500 tests.integration.temporal.plugins.model_command"
        in output
    )
    assert "worker stopping (stop requested); 0 activities in flight" in output
    # Its start-up heap is frozen once it is built: no full collection walks it again.
    frozen = re.search(r"froze (\d+) start-up objects", output)
    assert frozen is not None and int(frozen.group(1)) > 10_000, output


async def test_the_worker_keeps_the_workflow_sandbox_on_and_passes_through_no_io_module(
    client, settings, manager
):
    from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

    worker = build_worker(client, settings, HarnessActivities(manager))
    runner = worker.config(active_config=True)["workflow_runner"]
    assert isinstance(runner, SandboxedWorkflowRunner)
    passthrough = runner.restrictions.passthrough_modules
    assert (
        not {"harness", "harness.storage.artefacts", "harness.temporal.activity.hooked"}
        & passthrough
    )
    assert runner.converter_context_free  # the harness's converter takes no context


class FreshImports(importlib.abc.MetaPathFinder):
    """Names the modules of ours that something imports afresh (finds none itself)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name.split(".")[0] in ("harness", "commands", "bot"):
            self.names.append(name)


async def test_a_new_workflow_run_loads_afresh_only_its_own_module_and_its_packages(
    client, settings, manager
):
    # Building the worker starts one run of each workflow in the sandbox (the SDK's check of
    # each definition), as a new task or request does: the rest of ours is passed through.
    fresh = FreshImports()
    sys.meta_path.insert(0, fresh)
    try:
        build_worker(client, settings, HarnessActivities(manager))
    finally:
        sys.meta_path.remove(fresh)
    packages = ["harness", "harness.temporal", "harness.temporal.workflow"]
    assert sorted(fresh.names) == sorted(
        [
            *packages,
            "harness.temporal.workflow.task",
            *packages,
            "harness.temporal.workflow.request",
        ]
    )
