"""A plugin's own operation runs through the real path, following docs/architecture.md's recipe.

"Adding an operation" there is exact; a plugin that brings an operation of its own takes
the same two steps at run time: the context class, whose class keywords are the
operation's catalogue row, and the default body (``@body`` on a ``Bodies`` class). Then
the worker's own manager (``build_manager``, which registers every
marked body) and its own activities (``HarnessActivities``) know it, and the workflow
performs it exactly as the agent loop performs any operation: ``LoopOperations.run(ctx)``
through ``OperationRunner``, on a real worker of the session's dev server. Everything the
activity does with it comes from the row: its name, and ``unechoed``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from uuid import uuid4

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.worker import Worker

from harness.bodies import Bodies, body, register_defaults
from harness.hooks import (
    OPERATIONS,
    HookContext,
    HookManager,
    context_type,
    entry_of,
    forget_operation,
)
from harness.temporal.activity.hooked import HOOKED_ATTRIBUTE, HarnessActivities

from .probe import LoopPatchedProbe, LoopProbe


@pytest.fixture(params=[False, True], ids=["activity", "local"])
def echoed(request: pytest.FixtureRequest) -> Iterator[type[HookContext]]:
    """The plugin's operation: its context class (the row) and its default body; forgotten after.

    Twice: as an activity on the task queue, and as a row that says ``local`` (issue 27).
    """

    class ProbeEchoedContext(  # 1. the context class, its keywords the row
        HookContext,
        operation="probe.echoed",
        family="probe",
        unechoed=("lines",),
        local=request.param,
    ):
        """Lines to echo back; the body returns them upper-cased, one text."""

        lines: tuple[str, ...]
        result: str | None = None

    class ProbeBodies(Bodies):  # 2. the default body, found by its marker
        @body(ProbeEchoedContext)
        async def echoed(self, ctx: ProbeEchoedContext) -> ProbeEchoedContext:
            return ctx.model_copy(update={"result": " ".join(ctx.lines).upper()})

    yield ProbeEchoedContext
    forget_operation("probe.echoed")


@pytest.fixture
def manager(echoed, manager):
    """The worker's manager (conftest's build_manager), built once the plugin's operation is in."""
    return manager


async def test_a_runtime_added_operation_runs_through_loop_operations_on_a_real_worker(
    client, task_queue, manager, recorder, echoed
):
    assert "probe.echoed" not in OPERATIONS  # the built-in catalogue is the package's
    assert entry_of("probe.echoed").activity == "probe-echoed-v1"  # from the row
    assert context_type("probe.echoed.in") is echoed
    [registered_body] = manager.registrations("probe.echoed.in")  # register_defaults found it
    assert registered_body.name.endswith("ProbeBodies.echoed")
    recorder.attach(manager, ["probe.echoed"])
    activities = HarnessActivities(manager).activities()
    names = {a.__temporal_activity_definition.name: a for a in activities}
    assert getattr(names["probe-echoed-v1"], HOOKED_ATTRIBUTE) == "probe.echoed"

    fields = {"lines": ["hi", "there"], "correlation_id": "probe"}
    workflow_id = f"probe-{uuid4()}"
    async with Worker(client, task_queue=task_queue, workflows=[LoopProbe], activities=activities):
        out = await client.execute_workflow(
            "loop-probe",
            args=["probe.echoed", fields],
            id=workflow_id,
            task_queue=task_queue,
            execution_timeout=timedelta(seconds=30),  # a failing workflow task fails fast
        )

    done = echoed.model_validate(out["context"])
    assert out["type"] == "ProbeEchoedContext"
    assert done.result == "HI THERE"
    # The answer is what changed (the row's unechoed input left out); the workflow rebuilt
    # the context from what it sent.
    assert done.lines == ("hi", "there")
    assert done.attempt == 1 and done.idempotency_key  # OperationRunner's identity
    points = [p for p, _ in recorder.trace]
    assert points == ["probe.echoed.pre", "probe.echoed.in", "probe.echoed.post"]
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    markers = [
        e.marker_recorded_event_attributes.marker_name
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
    ]
    ran = "core_local_activity" if entry_of("probe.echoed").local else "scheduled"
    assert (scheduled, markers.count("core_local_activity")) == (
        ([], 1) if ran == "core_local_activity" else (["probe-echoed-changes-v1"], 0)
    )


def test_a_row_a_plugin_adds_without_its_body_is_refused_when_the_defaults_register(echoed):
    class ProbeBodilessContext(HookContext, operation="probe.bodiless", family="probe"):
        pass

    try:
        with pytest.raises(TypeError, match=r"without a default body: probe\.bodiless"):
            register_defaults(HookManager(), deps=None)  # type: ignore[arg-type]  # fails first
    finally:
        forget_operation("probe.bodiless")


async def test_a_guarded_loop_call_site_is_taken_by_a_new_run_and_marked_in_its_history(
    client, task_queue
):
    """Step 3's guard in the agent loop: ``LoopOperations.patched`` is ``workflow.patched``, true
    in a new run, which records the id (a history without it replays the old path:
    ``tests/unit/temporal/test_replay.py``)."""
    workflow_id = f"probe-{uuid4()}"
    async with Worker(client, task_queue=task_queue, workflows=[LoopPatchedProbe]):
        taken = await client.execute_workflow(
            "loop-patched-probe",
            "thing-done-v1",
            id=workflow_id,
            task_queue=task_queue,
            execution_timeout=timedelta(seconds=30),
        )
    assert taken is True
    history = await client.get_workflow_handle(workflow_id).fetch_history()
    markers = [
        e.marker_recorded_event_attributes.details["patch-data"].payloads[0]
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
    ]
    assert [m["id"] for m in await client.data_converter.decode(markers)] == ["thing-done-v1"]
