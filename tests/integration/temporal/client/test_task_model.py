"""A new task's model (issue 28): ``HARNESS_DEFAULT_MODEL``, else the first of ``HARNESS_MODELS``.

Through the real client, worker and dev server: the model a task shows in its snapshot is the
one it was started with, whether the task was started by a command or by a routed message.
"""

from __future__ import annotations

from uuid import uuid4

import pytest

from harness.config import Settings
from harness.domain import TaskSpec

from ..test_requests import request

MODELS = ["offline/haiku", "offline/sonnet", "offline/opus"]


@pytest.fixture
def settings(settings: Settings, request: pytest.FixtureRequest) -> Settings:
    """The session's settings with three models and the parametrized default model."""
    return settings.model_copy(update={"models": MODELS, "default_model": request.param})


@pytest.mark.parametrize(
    ("settings", "expected"),
    [("offline/sonnet", "offline/sonnet"), ("", "offline/haiku")],
    indirect=["settings"],
    ids=["default-model-set", "default-model-unset"],
)
async def test_a_new_task_takes_the_default_model_else_the_first_listed(
    harness, worker, settings, expected
):
    one, two, three = (f"M{uuid4().hex[:8]}" for _ in range(3))  # the dev server is the session's
    started = await harness.start_task(TaskSpec(title="t", owner="U1"), team="T", channel=one)
    routed = await harness.receive(request(harness, two, "hello", ts="2.0"))
    assert routed.started
    assert (await harness.snapshot(started.task_id)).model == expected
    assert (await harness.snapshot(routed.task_id)).model == expected
    named = await harness.start_task(
        TaskSpec(title="t", owner="U1", model="offline/opus"), team="T", channel=three
    )
    assert (await harness.snapshot(named.task_id)).model == "offline/opus"  # a named one wins
    for task_id in (started.task_id, routed.task_id, named.task_id):
        await harness.finish(task_id)
