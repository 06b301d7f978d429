"""Two bot replicas (two ``python -m bot`` processes, each with its own data dir) on one database.

As a deployment runs them: HTTP mode with signature checks, the same
``HARNESS_DATABASE_URL`` (a real PostgreSQL), one real worker on the session's
Temporal, and one Slack Web API stand-in that records every call either replica or
the worker makes. A thread reply reaching the replica that did not see the mention
reaches its task; a retry reaching the other replica, or the same event (or click)
delivered to both at once, posts nothing twice.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.say.clicks import click_body

from .conftest import TEAM, Slack, free_port
from .test_start import ROOT, bot_env

BOT_TOKEN = "xoxb-1-two-replicas-test"
MENTION_TS = "1700000100.000100"
RETRY = {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}


class Replica:
    """One ``python -m bot`` process and a signed sender of Slack's requests to it."""

    def __init__(self, process: asyncio.subprocess.Process, slack: Slack, log: Path) -> None:
        self.process = process
        self.slack = slack
        self.log = log


async def start_replica(name: str, tmp_path: Path, env: dict[str, str]) -> Replica:
    port = free_port()
    data = tmp_path / name
    data.mkdir()
    log = data / "bot.log"
    with log.open("wb") as out:  # a file, not a pipe: nobody has to keep reading it
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=ROOT,
            stdout=out,
            stderr=out,
            env=bot_env(data, BOT_PORT=str(port), **env),
        )
    async with asyncio.timeout(30):
        while b"bot listening" not in log.read_bytes():
            assert process.returncode is None, log.read_text()
            await asyncio.sleep(0.05)
    slack = Slack(f"http://127.0.0.1:{port}/slack/events", None, None)  # type: ignore[arg-type]
    return Replica(process, slack, log)


@pytest.fixture
async def replicas(
    postgres, settings, slack_api, worker, tmp_path
) -> AsyncIterator[tuple[Replica, Replica]]:
    """Replicas A and B in front of the worker, sharing one fresh PostgreSQL database."""
    env = {
        "BOT_LOCAL": "",
        "SLACK_SIGNING_SECRET": Slack.signing_secret,
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "BOT_API_URL": slack_api.url,
        "HARNESS_DATABASE_URL": postgres.create_database(f"bots_{uuid.uuid4().hex[:12]}"),
        "HARNESS_TEMPORAL_ADDRESS": settings.temporal_address,
        "HARNESS_TASK_QUEUE": settings.task_queue,
    }
    started = await asyncio.gather(
        start_replica("a", tmp_path, env), start_replica("b", tmp_path, env)
    )
    try:
        async with aiohttp.ClientSession() as session:
            for replica in started:
                replica.slack.session = session
            yield started[0], started[1]
    finally:
        for replica in started:
            replica.process.terminate()
        for replica in started:
            await asyncio.wait_for(replica.process.wait(), 30)
    for replica in started:
        log = replica.log.read_text()
        assert replica.process.returncode == 0, log
        assert "Traceback" not in log and BOT_TOKEN not in log, log
        assert "database postgresql+asyncpg://" in log  # the shared database, not a local file


def posts(slack_api, channel: str) -> list[dict]:
    """Every ``chat.postMessage`` to ``channel`` so far, by a replica or the worker."""
    return [
        args
        for method, args in slack_api.calls
        if method == "chat.postMessage" and args.get("channel") == channel
    ]


async def settled(slack_api, channel: str, quiet: float = 1.5) -> list[dict]:
    """The posts once none has been added for ``quiet`` seconds (the worker's replies are in)."""
    seen = posts(slack_api, channel)
    async with asyncio.timeout(60):
        while True:
            await asyncio.sleep(quiet)
            now = posts(slack_api, channel)
            if now == seen:
                return now
            seen = now


async def until(check, what: str, timeout: float = 30) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.1)


@pytest.fixture
def channel() -> str:
    return f"C{uuid.uuid4().hex[:8].upper()}"


async def test_reply_on_the_other_replica_is_delivered_and_a_retry_there_posts_nothing_twice(
    replicas, harness, slack_api, channel
):
    a, b = replicas
    task_id = harness.task_id(TEAM, channel)

    async def texts() -> list[str]:
        try:
            return [m.text for m in await harness.transcript(task_id)]
        except Exception:  # not started yet
            return []

    assert (await a.slack.event("app_mention.json", channel=channel))[0] == 200
    await until(lambda: _has(texts, "please summarise yesterday's deploy failures"), "mention")
    status, _ = await b.slack.event("message_in_thread.json", channel=channel, user="U0OWNER")
    assert status == 200
    await until(lambda: _has(texts, "also check the canary logs"), "the reply through B")
    await until(
        lambda: _posted(slack_api, channel, "(offline) also check the canary logs"),
        "the task's answer to the reply",
    )
    before = await settled(slack_api, channel)
    assert [p["text"] for p in before if p["text"].startswith("(offline)")] == [
        "(offline) please summarise yesterday's deploy failures",
        "(offline) also check the canary logs",
    ]
    started = [p for p in before if p["text"].startswith("started a task")]
    assert [p["thread_ts"] for p in started] == [MENTION_TS]  # said once, in the thread

    # A's mention again on B, as Slack retries it, and its message twin: both acked, unhandled.
    assert (await b.slack.event("app_mention.json", RETRY, channel=channel))[0] == 200
    assert (await b.slack.event("message_with_mention.json", channel=channel))[0] == 200
    assert (await b.slack.event("message_in_thread.json", RETRY, channel=channel, user="U0OWNER"))[
        0
    ] == 200
    assert await settled(slack_api, channel, quiet=3.0) == before
    assert await texts() == [
        "please summarise yesterday's deploy failures",
        "also check the canary logs",
    ]
    assert "duplicate event Ev0MENTION1 (retry 1) acknowledged" in b.log.read_text()


async def test_one_event_delivered_to_both_replicas_at_once_is_handled_once(
    replicas, harness, slack_api, channel
):
    a, b = replicas
    task_id = harness.task_id(TEAM, channel)
    answers = await asyncio.gather(
        a.slack.event("app_mention.json", channel=channel),
        b.slack.event("app_mention.json", RETRY, channel=channel),
        b.slack.event("message_with_mention.json", channel=channel),
        a.slack.event("message_with_mention.json", RETRY, channel=channel),
    )
    assert [status for status, _ in answers] == [200] * 4
    await until(lambda: _started(slack_api, channel, task_id), "task started")
    await until(
        lambda: _posted(
            slack_api, channel, "(offline) please summarise yesterday's deploy failures"
        ),
        "the task's answer",
    )
    after = await settled(slack_api, channel, quiet=3.0)
    assert sum(p["text"].startswith("started a task") for p in after) == 1
    assert sum(p["text"].startswith("(offline)") for p in after) == 1  # answered once too
    assert [m.text for m in await harness.transcript(task_id)] == [
        "please summarise yesterday's deploy failures"
    ]
    logs = a.log.read_text() + b.log.read_text()
    assert logs.count("duplicate event") == 3, logs


async def _has(texts, text: str) -> bool:
    return text in await texts()


async def _posted(slack_api, channel: str, text: str) -> bool:
    return any(p["text"] == text for p in posts(slack_api, channel))


async def _started(slack_api, channel: str, task_id: str) -> bool:
    return any(p["text"].startswith("started a task") for p in posts(slack_api, channel))


async def test_a_click_delivered_to_both_replicas_is_taken_once(
    replicas, harness, slack_api, channel
):
    a, b = replicas
    ask = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'
    assert (await a.slack.event("app_mention.json", channel=channel, text=ask))[0] == 200

    async def question() -> bool:
        return any(m.get("channel") == channel and m.get("blocks") for m in slack_api.messages)

    await until(question, "the question")
    [asked] = [m for m in slack_api.messages if m.get("channel") == channel and m.get("blocks")]
    # Loopback response URLs are dropped outside local mode: nothing reaches Slack from here.
    body = click_body(asked, 1, user="U0OWNER", team=TEAM, response_url=f"{slack_api.url}x")
    form = "application/x-www-form-urlencoded"
    answers = await asyncio.gather(
        *(r.slack.post(body, r.slack.build_headers(body, form)) for r in (a, b))
    )
    assert [status for status, _ in answers] == [200, 200]

    async def answered() -> bool:
        return any("<@U0OWNER> answered: staging" in p["text"] for p in posts(slack_api, channel))

    await until(answered, "the answer")
    await settled(slack_api, channel)
    assert sum("answered: staging" in p["text"] for p in posts(slack_api, channel)) == 1
    logs = a.log.read_text() + b.log.read_text()
    assert logs.count("delivered again") == 1 and "not taken" not in logs, logs
