"""Adding an operation is one catalogue line, one context class and one body (issue 12).

A throwaway operation, added to this process's catalogue with no other list edited,
runs on a real worker (the session's dev server, the worker's own manager) as its own
activity, through its pre, in and post chains.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar
from uuid import uuid4

import pytest
from temporalio.worker import Worker

from harness.hooks import (
    BUILTIN_BODY_PRIORITY,
    OPERATIONS,
    Entry,
    HookContext,
    context_type,
    extend,
)
from harness.temporal.activities import HOOKED_ATTRIBUTE, HarnessActivities

from .probe import Probe


@pytest.fixture
def echoed() -> Iterator[type[HookContext]]:
    """The new operation: its catalogue line and its context class, removed afterwards."""
    undo = extend(Entry("probe.echoed", "probe"))  # the catalogue line

    class ProbeEchoedContext(HookContext):  # the context class: registers itself
        """A text to echo back; the body returns it upper-cased."""

        operation: ClassVar[str] = "probe.echoed"
        text: str
        result: str | None = None

    yield ProbeEchoedContext
    undo()


@pytest.fixture
def manager(echoed, manager):
    """The worker's manager (conftest), built once the catalogue has the new operation."""
    return manager


async def upper(ctx):
    """The new operation's default body."""
    return ctx.model_copy(update={"result": ctx.text.upper()})


async def test_a_new_catalogue_line_runs_as_its_own_activity_with_its_chains(
    client, task_queue, manager, recorder, echoed
):
    assert "probe.echoed" not in OPERATIONS  # the table in the source is untouched
    assert context_type("probe.echoed.in") is echoed
    manager.register("probe.echoed.in", upper, priority=BUILTIN_BODY_PRIORITY)
    recorder.attach(manager, ["probe.echoed"])
    activities = HarnessActivities(manager).activities()
    registered = {a.__temporal_activity_definition.name: a for a in activities}
    assert getattr(registered["probe-echoed-v1"], HOOKED_ATTRIBUTE) == "probe.echoed"

    ctx = echoed(text="hi", correlation_id="probe")
    async with Worker(client, task_queue=task_queue, workflows=[Probe], activities=activities):
        out = await client.execute_workflow(
            "probe",
            args=["probe-echoed-v1", ctx.model_dump(mode="json"), 0.0],
            id=f"probe-{uuid4()}",
            task_queue=task_queue,
        )

    assert echoed.model_validate(out["ok"]).result == "HI"
    points = [p for p, _ in recorder.trace]
    assert points == ["probe.echoed.pre", "probe.echoed.in", "probe.echoed.post"]
    assert recorder.seen("probe.echoed.post")[0].result == "HI"
