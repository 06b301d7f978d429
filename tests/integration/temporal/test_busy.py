"""More concurrent updates than Temporal allows per workflow: ``TaskBusy``, not "unreachable".

Temporal accepts 10 in-flight updates per workflow (``history.maxInFlightUpdates``);
the client retries the eleventh for ``temporal_rpc_seconds`` (the session client as
``HarnessClient.connect``'s; the SDK's own default is about ten seconds) and then gives up
with ``RESOURCE_EXHAUSTED``. Ten commands are held in a pre executor so the limit is
reached on the real dev server, not simulated.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.domain import CommandResult, SetModel, TaskRef, TaskSpec
from harness.hooks.contexts import CommandInvokedContext
from harness.temporal.errors import TaskBusy, TaskUnavailable

LIMIT = 10  # Temporal's default history.maxInFlightUpdates


@pytest.fixture
def settings(settings):
    """Held activities must outlive the client's retries of the eleventh update."""
    return settings.model_copy(update={"activity_start_to_close_seconds": 60})


class Gate:
    """A pre executor on ``command.invoked`` that holds every command until opened."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.held = 0

    async def __call__(self, ctx: CommandInvokedContext) -> None:
        self.held += 1
        await self.open.wait()

    async def until_held(self, count: int) -> None:
        async with asyncio.timeout(20):
            while self.held < count:
                await asyncio.sleep(0.05)


async def set_model(ctx: CommandInvokedContext):
    effects = (SetModel(model=ctx.args),)
    return ctx.model_copy(update={"result": CommandResult(reply="ok", effects=effects)})


def command(ref: TaskRef, args: str, n: int) -> CommandInvokedContext:
    return CommandInvokedContext(
        task=ref, command="model", args=args, sender="U0OWNER", correlation_id=f"busy/{n}"
    )


async def test_an_update_past_the_in_flight_limit_is_task_busy_and_not_applied(
    harness, manager, worker
):
    gate = Gate()
    manager.register("command.invoked.pre", gate, priority=200)
    manager.register("command.invoked.in", set_model)
    ref = await harness.start_task(
        TaskSpec(title="t", owner="U0OWNER", model="offline"), team="T", channel="BUSY1"
    )
    held = [
        asyncio.create_task(harness.send_command(command(ref, "held", n))) for n in range(LIMIT)
    ]
    await gate.until_held(LIMIT)
    try:
        with pytest.raises(TaskBusy) as caught:
            await harness.send_command(command(ref, "extra", LIMIT))
    finally:
        gate.open.set()
        results = await asyncio.gather(*held)
    error = caught.value
    assert not isinstance(error, TaskUnavailable)
    assert (error.task_id, error.in_flight) == (ref.task_id, LIMIT)
    assert [r.reply for r in results] == ["ok"] * LIMIT
    assert gate.held == LIMIT  # the eleventh never reached the task
    assert (await harness.snapshot(ref.task_id)).model == "held"
