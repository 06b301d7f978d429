"""Every text the bot writes is redacted with its own credentials known (issue 9).

A signing secret looks like no token family, so the worker's redactor cannot know
it; the bot's does. Sent as a slash command's argument, it comes back in the task's
reply ("unknown model …") and, when the task is slow, in the "working on …" note
that repeats the arguments; neither may show it. Real bot, real worker.
"""

from __future__ import annotations

import asyncio
import uuid

from harness.domain import TaskSpec

from .conftest import TEAM, Slack, serve_bot

OWNER = "U0OWNER"
SECRET = Slack.signing_secret


async def test_a_secret_in_a_commands_arguments_is_masked_in_the_ack_and_the_late_reply(
    harness, manager, worker, tmp_path
):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    async for slack in serve_bot(harness, tmp_path):
        status, reply = await slack.slash("/model", SECRET, user=OWNER, channel=channel)
    assert status == 200 and SECRET not in reply and "[REDACTED]" in reply

    async def slow(ctx):
        await asyncio.sleep(0.6)

    manager.register("command.invoked.pre", slow, priority=200)
    async for slack in serve_bot(harness, tmp_path / "slow", ack_budget_seconds=0.2):
        status, ack = await slack.slash("/model", SECRET, user=OWNER, channel=channel, key="r1")
        await slack.bot.slash.drain()
        late = await slack.responses("r1")
    assert (status, ack) == (200, "working on `/model [REDACTED]` …")
    assert late and all(SECRET not in m["text"] for m in late), late
    assert "[REDACTED]" in late[-1]["text"]


async def test_an_unknown_commands_name_is_masked_too(harness, tmp_path):
    async for slack in serve_bot(harness, tmp_path):
        status, reply = await slack.slash(f"/{SECRET}", user=OWNER, channel="C1")
    assert (status, reply) == (200, "`/[REDACTED]` is not a command here; `/task help` lists them")
