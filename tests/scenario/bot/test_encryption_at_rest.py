"""Issue 9 end to end: Slack text, tokens and response URLs are not readable in Temporal's database.

A signed mention (holding a Slack-token canary and a plain canary word) and a slash
command go through the real bot to a real worker on the session's dev server; once the
offline model has answered, the server's SQLite file and its write-ahead log are read
byte by byte. The same history decoded with the client's codec does hold the plain
word and the command, so the check would fail if nothing had been written.
"""

from __future__ import annotations

import asyncio
import secrets
import time
import uuid
from pathlib import Path

from harness.domain import TaskStatus
from tests.support.history import opened_bytes

from .conftest import TEAM

OWNER = "U0OWNER"


def at_rest(db: Path) -> bytes:
    """The dev server's database as it sits on disk: the file and its write-ahead log."""
    return b"".join(p.read_bytes() for p in (db, db.with_name(db.name + "-wal")) if p.exists())


def agent_replies(slack_api, channel: str) -> list[str]:
    return [
        a["text"]
        for m, a in slack_api.calls
        if m == "chat.postMessage" and a.get("channel") == channel
    ]


async def test_nothing_sent_from_slack_is_readable_in_temporals_database(
    slack, harness, slack_api, temporal_db
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    token = "xoxb-" + secrets.token_hex(12)
    word = "plaincanary" + secrets.token_hex(6)  # nothing secret-shaped: only encryption hides it
    text = f"<@UBOTLOCAL> remember {word} and deploy with {token}"
    status, _ = await slack.event(
        "app_mention.json", channel=channel, text=text, event_id=f"Ev{uuid.uuid4().hex[:10]}"
    )
    assert status == 200
    deadline = time.monotonic() + 20
    while not any(word in reply for reply in agent_replies(slack_api, channel)):
        assert time.monotonic() < deadline, f"no answer: {agent_replies(slack_api, channel)}"
        await asyncio.sleep(0.05)
    key = uuid.uuid4().hex
    status, reply = await slack.slash("/effort", "high", user=OWNER, channel=channel, key=key)
    assert status == 200 and "high" in reply
    response_url = f"{slack.base}/_local/response/{key}"

    task_id = harness.task_id(TEAM, channel)
    [said] = await harness.transcript(task_id)
    assert word in said.text and token not in said.text and "[REDACTED]" in said.text

    stored = at_rest(temporal_db)
    assert stored, f"nothing at {temporal_db}"
    for canary in (word, token, response_url):
        assert canary.encode() not in stored, f"{canary} is readable in {temporal_db}"

    opened = await opened_bytes(harness.temporal, task_id)  # the control: it was written
    assert word.encode() in opened and b'"command":"effort","args":"high"' in opened
    assert token.encode() not in opened  # masked before it was sent, not only encrypted
    await harness.finish(task_id, TaskStatus.SUCCEEDED)
