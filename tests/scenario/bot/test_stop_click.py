"""The Stop button of a progress message is the command ``stop`` run as the clicker.

Real bot over HTTP (signed ``block_actions`` payloads), real worker, real dev server: the
task's role guard decides, and the reply reaches the clicker through the response URL in
the usual grammar. The button is the one the worker renders (progress_message).
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from bot.say.clicks import click_body, is_progress, last_stop
from harness.channels.progress import STOP_ACTION, progress_message
from harness.domain import TurnProgress

from .conftest import TEAM
from .test_slash_roles import COLLAB, NOT_PART, STRANGER, WATCH_ONLY, WATCHER, start_task


def progress_post(channel: str, task_id: str) -> dict:
    """The progress message as the stand-in keeps it (its arguments and ts)."""
    progress = TurnProgress(
        message_ts="1700000000.000200",
        request_ts="1700000000.000100",
        channel=channel,
        thread="1700000000.000100",
        started_at=1.0,
    )
    message = progress_message(progress, task_id=task_id, now=3.0)
    return {
        "method": "chat.postMessage",
        "channel": channel,
        "ts": message.ts,
        "thread_ts": message.thread,
        "text": message.text,
        "blocks": [dict(b) for b in message.blocks],
    }


async def click_stop(slack, post: dict, user: str) -> list[dict]:
    key = uuid.uuid4().hex
    body = click_body(
        post, 1, user=user, team=TEAM, response_url=f"{slack.base}/_local/response/{key}"
    )
    status, _ = await slack.post(
        body, slack.build_headers(body, "application/x-www-form-urlencoded")
    )
    assert status == 200
    deadline = time.monotonic() + 15
    while not (answers := await slack.responses(key)):
        assert time.monotonic() < deadline, "no answer to the Stop click"
        await asyncio.sleep(0.05)
    return answers


@pytest.fixture
async def task(harness):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    return channel, await start_task(harness, channel)


def test_the_progress_post_is_found_as_bot_say_finds_it():
    post = progress_post("C1", "task-1")
    assert is_progress(post)
    assert last_stop([post], "C1") == post
    [button] = [e for b in post["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert (button["action_id"], button["value"]) == (STOP_ACTION, "task-1")


REFUSALS = [(WATCHER, WATCH_ONLY.format(form="/task stop")), (STRANGER, NOT_PART)]


@pytest.mark.parametrize(("user", "refusal"), REFUSALS, ids=["watcher", "none"])
async def test_a_click_by_someone_who_may_not_stop_is_refused_to_them_only(
    slack, task, user, refusal
):
    channel, task_id = task
    [answer] = await click_stop(slack, progress_post(channel, task_id), user)
    assert (answer["text"], answer["response_type"]) == (refusal, "ephemeral")
    assert answer.get("replace_original") in (False, "false")  # the progress message stays


async def test_a_collaborators_click_runs_stop_on_the_task(slack, harness, task):
    channel, task_id = task
    [answer] = await click_stop(slack, progress_post(channel, task_id), COLLAB)
    assert not answer["text"].startswith("refused")
    assert "stop" in answer["text"]  # the stop command's own answer (nothing runs in this task)
    assert (await harness.snapshot(task_id)).status not in ("finished", "cancelled")


async def test_the_same_click_delivered_twice_is_taken_once(slack, task):
    channel, task_id = task
    key = uuid.uuid4().hex
    body = click_body(
        progress_post(channel, task_id),
        1,
        user=WATCHER,
        team=TEAM,
        response_url=f"{slack.base}/_local/response/{key}",
    )
    headers = slack.build_headers(body, "application/x-www-form-urlencoded")
    assert (await slack.post(body, headers))[0] == 200
    assert (await slack.post(body, headers))[0] == 200
    await asyncio.sleep(1.5)
    assert len(await slack.responses(key)) == 1
