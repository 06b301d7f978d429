"""Run limits: a task continues as new past each of its own limits, and sub-tasks hold it back
only for ``subtask_wait_seconds``.

Each test sets one limit small (the others stay at their defaults, far away), drives a
task past it against the session's dev server, and checks the task rolled over without
losing a message, and that every run replays (:mod:`harness.temporal.workflow.run_limits`).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from commands import register_all
from harness.config import Settings
from harness.domain import (
    ChannelMessage,
    CommandResult,
    SpawnSubtask,
    SubtaskSpec,
    TaskSpec,
    TaskStatus,
)
from harness.hooks.contexts import CommandInvokedContext

from .conftest import assert_replays
from .test_continue_as_new import runs

CHANNEL = "CLIMITS"

LIMITS = {
    "events": {"history_event_limit": 100},
    "bytes": {"history_bytes_limit": 15_000},  # smaller since results carry what changed
    "updates": {"history_update_limit": 3},
}


@pytest.fixture
def settings(request: pytest.FixtureRequest, settings: Settings) -> Settings:
    """The test's limits (``indirect`` parameters) over the session's settings."""
    return settings.model_copy(update=getattr(request, "param", {}))


@pytest.fixture
async def manager(manager):
    register_all(manager, models=("offline", "offline/large"))
    return manager


def posts(slack_api) -> list[str]:
    return [
        a["text"]
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == CHANNEL
    ]


async def say(harness, slack_api, task_id: str, text: str, ts: str) -> None:
    before = len(posts(slack_api))
    message = ChannelMessage(channel=CHANNEL, thread="1.0", user="U1", text=text, ts=ts)
    await harness.send_message(task_id, message)
    deadline = time.monotonic() + 20
    while len(posts(slack_api)) == before:
        assert time.monotonic() < deadline, f"no reply to {text!r}"
        await asyncio.sleep(0.05)


async def rolled(client, task_id: str, first_run: str, count: int, seconds: float = 20) -> list:
    deadline = time.monotonic() + seconds
    while len(chain := await runs(client, task_id, first_run)) < count:
        assert time.monotonic() < deadline, f"{len(chain)} run(s), wanted {count}"
        await asyncio.sleep(0.1)
    return chain


async def start(harness, client, title: str):
    ref = await harness.start_task(
        TaskSpec(title=title, owner="U1"), team="T", channel=CHANNEL, thread="1.0"
    )
    return ref, (await client.get_workflow_handle(ref.task_id).describe()).run_id


@pytest.mark.parametrize("settings", list(LIMITS.values()), ids=list(LIMITS), indirect=True)
async def test_a_task_past_a_limit_continues_as_new_and_keeps_every_message(
    harness, worker, client, slack_api, settings
):
    ref, first_run = await start(harness, client, "limits")
    sent: list[str] = []
    for n in range(1, 13):
        sent.append(f"message {n}: {' '.join(['words'] * 40)}")
        await say(harness, slack_api, ref.task_id, sent[-1], ts=f"2.{n}")
        if len(await runs(client, ref.task_id, first_run)) >= 3:
            break
    chain = await rolled(client, ref.task_id, first_run, 3)
    assert len(sent) < 12, "rolled over only at the end"
    await say(harness, slack_api, ref.task_id, "last", ts="3.0")
    assert [m.text for m in await harness.transcript(ref.task_id)] == [*sent, "last"]
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    assert len(chain) >= 3
    await assert_replays(client, [ref.task_id])


@pytest.mark.parametrize("settings", [LIMITS["updates"]], ids=["updates"], indirect=True)
async def test_commands_alone_reach_the_update_limit(harness, worker, client, settings):
    ref, first_run = await start(harness, client, "commands")
    for model in ("offline/large", "offline", "offline/large"):
        await harness.send_command(
            CommandInvokedContext(task=ref, command="model", args=model, sender="U1")
        )
    await rolled(client, ref.task_id, first_run, 2)
    assert (await harness.snapshot(ref.task_id)).model == "offline/large"
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)


async def spawn_child(harness, manager, ref) -> str:
    """A sub-task with no prompt: no request to answer, so it runs on purpose until it is
    finished or cancelled (one with a prompt would end by itself once it answered)."""

    async def subtask(ctx: CommandInvokedContext):
        if ctx.command != "sub-task":
            return None
        spec = SubtaskSpec(title=ctx.args, requested_by=ctx.sender)
        effects = (SpawnSubtask(subtask=spec),)
        return ctx.model_copy(update={"result": CommandResult(reply="ok", effects=effects)})

    manager.register("command.invoked.in", subtask)
    result = await harness.send_command(
        CommandInvokedContext(task=ref, command="sub-task", args="dig", sender="U1")
    )
    return str(result.effects[0].subtask.task_id)


async def reach_update_limit(harness, ref) -> None:
    for _ in range(2):  # with the spawning command: three updates
        await harness.send_command(
            CommandInvokedContext(task=ref, command="effort", args="high", sender="U1")
        )


@pytest.mark.parametrize(
    "settings", [{"history_update_limit": 3, "subtask_wait_seconds": 0.5}], indirect=True
)
async def test_a_sub_task_holds_the_roll_over_back_only_for_the_wait(
    harness, manager, worker, client, slack_api, settings
):
    ref, first_run = await start(harness, client, "parent")
    child = await spawn_child(harness, manager, ref)
    await reach_update_limit(harness, ref)
    await rolled(client, ref.task_id, first_run, 2)
    assert (await asyncio.wait_for(harness.outcome(child), 20)).status == TaskStatus.CANCELLED
    note = [p for p in posts(slack_api) if "history limit (updates)" in p]
    assert note == [
        "this task reached its history limit (updates) and continues in a fresh run; "
        "cancelled 1 running sub-task (sub-task 1)"
    ]
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    await assert_replays(client, [ref.task_id, child])


@pytest.mark.parametrize(
    "settings", [{"history_update_limit": 3, "subtask_wait_seconds": 60}], indirect=True
)
async def test_a_sub_task_ending_within_the_wait_is_not_cancelled(
    harness, manager, worker, client, settings
):
    ref, first_run = await start(harness, client, "patient")
    child = await spawn_child(harness, manager, ref)
    await reach_update_limit(harness, ref)
    await asyncio.sleep(1)
    assert len(await runs(client, ref.task_id, first_run)) == 1  # held back by the child
    await harness.finish(child, summary="dug")
    assert (await harness.outcome(child)).status == TaskStatus.SUCCEEDED
    await rolled(client, ref.task_id, first_run, 2)
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)


@pytest.mark.parametrize("settings", [LIMITS["updates"]], ids=["updates"], indirect=True)
async def test_a_sub_task_after_a_roll_over_posts_where_the_last_turn_was(
    harness, manager, worker, client, slack_api, settings
):
    """The thread of the task's last turn survives continue-as-new: a sub-task a slash command
    starts in the fresh run posts there, not in the task's first thread (issue 26)."""
    ref, first_run = await start(harness, client, "latest")
    message = ChannelMessage(channel=CHANNEL, thread="5.0", user="U1", text="later", ts="5.0")
    await harness.send_message(ref.task_id, message)
    deadline = time.monotonic() + 20
    while not [
        a
        for m, a in slack_api.calls
        if a.get("thread_ts") == "5.0" and "later" in a.get("text", "")
    ]:
        assert time.monotonic() < deadline, "no answer in thread 5.0"
        await asyncio.sleep(0.05)
    await reach_update_limit(harness, ref)  # with the message: three updates
    await rolled(client, ref.task_id, first_run, 2)
    child = await spawn_child(harness, manager, ref)
    assert (await harness.snapshot(child)).ref.thread == "5.0"
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    await assert_replays(client, [ref.task_id, child])
