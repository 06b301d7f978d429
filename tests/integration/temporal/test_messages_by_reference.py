"""Issue 27: the loop's messages reach history whole once per run, and the model still reads
them all.

A real worker whose activities keep messages in the sealed vault on the worker's database
answers a thread of plain and tool messages. Every model call's executors see the whole
window; the history's model and triage inputs carry each message whole at most once, the
rest by number. When the store loses the messages mid-task (its rows deleted), the next
model call fails once as retryable, its retry carries them whole, and the task answers.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

from bot.standin import SlackStandIn
from harness.config import Settings
from harness.domain import ChannelMessage, TaskSpec
from harness.hooks import HookContext, HookManager
from harness.storage import open_database
from harness.temporal.activity.hooked import HarnessActivities
from harness.temporal.client import HarnessClient
from harness.temporal.codec import EncryptionCodec
from harness.temporal.keys import load_keys
from harness.temporal.vault import KEY_PREFIX, SealedVault
from harness.temporal.worker import build_worker, retry_limits
from tests.support.history import payloads_in

from .conftest import assert_replays

BY_REFERENCE = ("llm-invoked-refs-v1", "system-one-invoked-refs-v1")


@pytest.fixture
async def vaulted_worker(
    client: Client, settings: Settings, manager: HookManager
) -> AsyncIterator[Worker]:
    """The worker as ``python -m harness.worker`` builds its activities: the sealed vault."""
    database = await open_database(settings.database)
    keys = load_keys(settings)
    activities = HarnessActivities(
        manager,
        heartbeat_seconds=0.5,
        retry_limits=retry_limits(settings),
        vault=SealedVault(database, EncryptionCodec(keys), secret=keys[0].secret),
    )
    try:
        async with build_worker(client, settings, activities) as running:
            yield running
    finally:
        await database.aclose()


async def say(
    harness: HarnessClient, slack: SlackStandIn, task_id: str, channel: str, n: int, text: str
) -> None:
    """Send message ``n`` and wait for the task's answer to it."""
    posted = len(slack.calls)
    message = ChannelMessage(channel=channel, thread="1.0", user="U1", text=text, ts=f"1.{n}")
    await harness.send_message(task_id, message)
    deadline = time.monotonic() + 30
    while not any(a.get("channel") == channel for _, a in slack.calls[posted:]):
        assert time.monotonic() < deadline, f"no answer to message {n}"
        await asyncio.sleep(0.05)
    while (await harness.snapshot(task_id)).turn is not None:
        assert time.monotonic() < deadline, f"message {n}'s turn never ended"
        await asyncio.sleep(0.05)


async def inputs(client: Client, task_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Each model and triage activity's input in the task's history, opened."""
    history = await client.get_workflow_handle(task_id).fetch_history()
    codec = client.data_converter.payload_codec
    assert codec is not None
    found = []
    for event in history.events:
        if event.event_type != EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            continue
        name = event.activity_task_scheduled_event_attributes.activity_type.name
        if name in BY_REFERENCE:
            [opened] = await codec.decode(list(payloads_in(event)))
            found.append((name, json.loads(opened.data)))
    return found


def watch(manager: HookManager, point: str, field: str) -> list[tuple[object, ...]]:
    """What each run of ``point`` held in ``field``, as its executors saw it."""
    seen: list[tuple[object, ...]] = []

    async def spy(ctx: HookContext) -> None:
        seen.append(getattr(ctx, field))

    manager.register(point, spy)
    return seen


async def started(harness: HarnessClient, channel: str) -> str:
    spec = TaskSpec(title=channel, owner="U1")
    ref = await harness.start_task(spec, team="T", channel=channel, thread="1.0")
    return ref.task_id


def texts(prompt: tuple[object, ...]) -> list[str]:
    return [m.content for m in prompt if getattr(m, "role", "") == "user"]  # type: ignore[attr-defined]


async def test_each_message_is_in_history_whole_once_and_the_model_reads_every_one(
    harness, vaulted_worker, manager, slack_api, client, settings
):
    prompts = watch(manager, "llm.invoked.pre", "messages")
    channel = "CBYREF"
    task_id = await started(harness, channel)
    said = []
    for n in range(1, 7):
        text = f'call echo {{"text": "tool {n}"}}' if n % 2 == 0 else f"remember {n * 7}"
        said.append(text)
        await say(harness, slack_api, task_id, channel, n, text)
    # The last model call read every message of the thread, in order.
    assert [t for t in texts(prompts[-1]) if t in said] == said
    # History: each message whole at most once in the model and triage inputs of this run.
    sent = await inputs(client, task_id)
    assert {name for name, _ in sent} == set(BY_REFERENCE)
    whole = Counter(
        json.dumps(m, sort_keys=True) for _, data in sent for m in data["inline"].values()
    )
    assert whole and max(whole.values()) == 1, whole.most_common(3)
    last_model = [data for name, data in sent if name == "llm-invoked-refs-v1"][-1]
    assert last_model["context"]["messages"] == []
    assert "-" in last_model["fields"]["messages"]  # the window as spans of numbers
    assert len(last_model["inline"]) <= 2  # what the last turn added, not the thread
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])


async def test_a_store_that_lost_the_messages_costs_one_attempt_not_the_task(
    harness, vaulted_worker, manager, slack_api, client, settings
):
    triaged = watch(manager, "system_one.invoked.pre", "transcript")
    channel = "CLOSTREF"
    task_id = await started(harness, channel)
    await say(harness, slack_api, task_id, channel, 1, "remember 7")
    await say(harness, slack_api, task_id, channel, 2, "remember 14")
    with sqlite3.connect(settings.artefact_store_path) as raw:
        gone = raw.execute("DELETE FROM artefact WHERE key LIKE ?", (f"{KEY_PREFIX}%",)).rowcount
    assert gone > 0
    await say(harness, slack_api, task_id, channel, 3, "remember 21")
    # Triage read the thread from before the loss: the retry carried it whole.
    assert texts(triaged[-1]) == ["remember 7", "remember 14"]
    history = await client.get_workflow_handle(task_id).fetch_history()
    failures = [
        e.activity_task_failed_event_attributes.failure.application_failure_info.type
        for e in history.events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
    ]
    assert failures and set(failures) == {"MessagesMissing"}
    # The thread is told what was retried: not the model, which answered every time.
    said = [str(a.get("text", "")) for _, a in slack_api.calls if a.get("channel") == channel]
    assert any("messages could not be read back from storage" in text for text in said)
    assert not any("model is not answering" in text for text in said)
    await harness.finish(task_id)
    await harness.outcome(task_id)
    await assert_replays(client, [task_id])
