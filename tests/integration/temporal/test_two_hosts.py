"""Two hosts, one task (issue 13's acceptance): two ``python -m harness.worker`` processes with
their own data dirs share one PostgreSQL database and the session's Temporal.

A small update limit (``HARNESS_HISTORY_UPDATE_LIMIT``) rolls the task over into a fresh
run every few messages, and the workers are stopped and started so that each serves it
alone for a while: host A first, both, host B alone, then A again. The transcript holds
every message in order, an artefact written through the tool on one host is read on the
other, and the audit records both wrote are in the table either host reads.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from pydantic import SecretStr

from bot.say.clicks import is_progress
from harness.domain import ChannelMessage, TaskSpec
from harness.storage import database_url, open_database
from harness.storage.artefacts import SqlArtefactStore
from harness.storage.audit import recent_audit
from harness.temporal.client import HarnessClient
from harness.temporal.models import HelpClick

from .conftest import ROOT, worker_env
from .test_continue_as_new import runs

CHANNEL = "C2HOSTS"
UPDATE_LIMIT = 3
PLUGIN = "tests.integration.temporal.two_hosts_plugins:refuse_clock"


class Hosts:
    """The worker processes by host name; each host keeps its data dir across restarts."""

    def __init__(self, settings, url: str, root: Path) -> None:
        self.settings, self.url, self.root = settings, url, root
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def env(self, host: str) -> dict[str, str]:
        return worker_env(
            self.settings,
            HARNESS_DATA_DIR=str(self.root / host),
            HARNESS_DATABASE_URL=self.url,
            HARNESS_HISTORY_UPDATE_LIMIT=str(UPDATE_LIMIT),
            HARNESS_PLUGINS=json.dumps([PLUGIN]),
            HARNESS_TEST_HOST=host,
        )

    def start(self, host: str) -> None:
        with (self.root / f"{host}.log").open("ab") as log:  # the child keeps its own copy
            self.running[host] = subprocess.Popen(
                [sys.executable, "-m", "harness.worker"],
                cwd=ROOT,
                env=self.env(host),
                stdout=log,
                stderr=log,
            )

    def stop(self, host: str) -> None:
        process = self.running.pop(host)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0, (self.root / f"{host}.log").read_text()

    def stop_all(self) -> None:
        for host in list(self.running):
            self.running[host].kill()
            self.running.pop(host).wait()


def posts(slack_api) -> list[dict]:
    """The thread's posts, without the turns' progress messages (updated in place)."""
    return [
        a
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == CHANNEL and not is_progress(a)
    ]


def help_request_id(post: dict) -> str | None:
    blocks = post.get("blocks") or []
    blocks = json.loads(blocks) if isinstance(blocks, str) else blocks
    found = [b["block_id"] for b in blocks if str(b.get("block_id", "")).startswith("help-")]
    return found[0].removeprefix("help-") if found else None


async def next_post(slack_api, seen: int, text: str, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while len(posts(slack_api)) <= seen:
        assert time.monotonic() < deadline, f"no reply to {text!r}"
        await asyncio.sleep(0.05)
    return posts(slack_api)[seen]


async def say(harness, slack_api, task_id: str, text: str, ts: str) -> str:
    """Send one message and wait for the reply; approve a write it asks about on the way."""
    seen = len(posts(slack_api))
    message = ChannelMessage(channel=CHANNEL, thread="1.0", user="U1", text=text, ts=ts)
    await harness.send_message(task_id, message)
    post = await next_post(slack_api, seen, text)
    if (request_id := help_request_id(post)) is not None:
        click = HelpClick(request_id=request_id, user="U1", choice="approve")
        await harness.answer_help(task_id, click)
        post = await next_post(slack_api, seen + 1, text)
    return str(post.get("text", ""))


@pytest.fixture
async def hosts(postgres, settings, tmp_path):
    hosts = Hosts(settings, postgres.create_database(f"two_hosts_{uuid.uuid4().hex[:8]}"), tmp_path)
    yield hosts
    hosts.stop_all()


async def test_two_hosts_serve_one_task_through_the_shared_database(
    hosts, harness, client, slack_api
):
    hosts.start("a")
    ref = await harness.start_task(
        TaskSpec(title="two hosts", owner="U1"), team="T", channel=CHANNEL, thread="1.0"
    )
    first_run = (await client.get_workflow_handle(ref.task_id).describe()).run_id
    sent: list[str] = []

    async def send(text: str) -> str:
        sent.append(text)
        return await say(harness, slack_api, ref.task_id, text, ts=f"2.{len(sent):03d}")

    for n in range(1, 3):
        await send(f"message {n} on host a")
    wrote = await send('call write_artefact {"name": "notes.md", "content": "from host a"}')
    assert "stored notes.md version 1" in wrote
    assert "clock refused on host a" in await send("call clock {}")

    hosts.start("b")
    for n in range(5, 10):
        await send(f"message {n} on either host")

    hosts.stop("a")  # B alone: what A wrote must come from the database
    assert "from host a" in await send('call read_artefact {"name": "notes.md"}')
    assert "clock refused on host b" in await send("call clock {}")
    wrote = await send('call write_artefact {"name": "notes.md", "content": "from host b"}')
    assert "stored notes.md version 2" in wrote
    for n in range(13, 16):
        await send(f"message {n} on host b")

    hosts.start("a")
    hosts.stop("b")  # A again: it reads what B wrote
    assert "from host b" in await send('call read_artefact {"name": "notes.md"}')
    await send("message 17 on host a")

    # Read from the shared database, as a client of the deployment does (the workflow keeps
    # only the last messages).
    shared = HarnessClient(
        client, harness.settings.model_copy(update={"database_url": SecretStr(hosts.url)})
    )
    assert [m.text for m in await shared.transcript(ref.task_id)] == sent
    assert len(sent) >= 16
    chain = await runs(client, ref.task_id, first_run)
    assert len(chain) >= 4, f"{len(chain)} runs: the update limit should roll over every few"
    await harness.finish(ref.task_id)
    await harness.outcome(ref.task_id)
    hosts.stop("a")  # its shutdown writes what its audit queue still holds

    url = database_url(hosts.url, Path("unused"))
    audited = await recent_audit(url, 20, task_id=ref.task_id)
    refusals = [r.reason for r in audited if r.kind == "refusal"]
    assert refusals == ["clock refused on host a", "clock refused on host b"]
    assert [r.kind for r in audited if "write_artefact" in r.reason][:2] == ["ask", "approval"]
    database = await open_database(url)
    try:
        key = f"task/{ref.task_id}/artefacts/notes.md"
        versions = await SqlArtefactStore(database).versions(key)
    finally:
        await database.aclose()
    assert [a.content for a in versions] == ["from host a", "from host b"]

    # The hooks CLI, configured as host B is, lists host A's record too.
    audit = subprocess.run(
        [sys.executable, "-m", "harness.hooks", "audit", "--task", ref.task_id],
        cwd=ROOT,
        env=hosts.env("b"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert audit.returncode == 0, audit.stderr
    lines = [line for line in audit.stdout.splitlines() if "clock refused" in line]
    assert len(lines) == 2 and "on host a" in lines[0] and "on host b" in lines[1], lines
    assert any("approved by <@U1>" in line for line in audit.stdout.splitlines())
