"""What the manifest declares is what the bot routes; ``/task help`` and a DM answer anywhere.

The real bot in front of a real worker, signed payloads over HTTP. The commands sent
are read from the committed ``slack/manifest.yml``, so a manifest and a bot that
disagree fail here, not in a workspace.
"""

from __future__ import annotations

import asyncio
import uuid

import yaml

from bot.manifest import FILES, SLACK_DIR
from commands import COMMANDS
from commands.help import render_without_task
from harness.domain import TaskSpec
from harness.temporal.errors import TaskNotFound

from .conftest import TEAM

OWNER = "U0OWNER"
NOT_HERE = "is not a command here"


def declared() -> list[str]:
    data = yaml.safe_load((SLACK_DIR / FILES["http"]).read_text())
    return [entry["command"] for entry in data["features"]["slash_commands"]]


def new_channel() -> str:
    return f"C{uuid.uuid4().hex[:8].upper()}"


async def test_every_declared_command_reaches_the_task_and_nothing_else_does(slack, harness):
    channel = new_channel()
    await harness.start_task(
        TaskSpec(title="routing", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    for command in declared():
        status, reply = await slack.slash(command, user=OWNER, channel=channel)
        assert status == 200 and NOT_HERE not in reply and " is `/task" not in reply, command
    _, reply = await slack.slash("/task", "status", user=OWNER, channel=channel)
    assert reply.startswith("*routing* — idle")  # no message yet: nothing runs
    # Every registry command not declared on its own is reached only under /task.
    for spec in COMMANDS.values():
        if f"/{spec.name}" not in declared():
            _, reply = await slack.slash(f"/{spec.name}", user=OWNER, channel=channel)
            assert reply.startswith(f"`/{spec.name}` is `/task {spec.name}` here"), reply
    _, reply = await slack.slash("/task", "teleport mars", user=OWNER, channel=channel)
    assert reply == "`/task teleport` is not a command here; `/task help` lists them"


async def test_help_without_a_task_says_how_to_start_one(slack, harness):
    channel = new_channel()
    expected = render_without_task(COMMANDS.values())
    for text in ("help", "", "HELP"):
        assert await slack.slash("/task", text, user=OWNER, channel=channel) == (200, expected)
    # Only help answers without a task; the rest still say there is none.
    _, reply = await slack.slash("/task", "status", user=OWNER, channel=channel)
    assert reply.startswith("there is no task in this channel yet, so `/task status`")
    # Typed in a direct message with the bot, too: no task is started by asking.
    assert await slack.slash("/task", "help", user=OWNER, channel="D0DIRECT1") == (200, expected)
    for place in (channel, "D0DIRECT1"):
        try:
            await harness.snapshot(harness.task_id(TEAM, place))
        except TaskNotFound:
            continue
        raise AssertionError(f"help started a task in {place}")


async def test_help_with_a_task_is_the_tasks_answer_for_the_senders_role(slack, harness):
    channel = new_channel()
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    _, reply = await slack.slash("/task", "help", user=OWNER, channel=channel)
    assert reply.startswith("you are *owner* in this task. commands:")


async def test_a_direct_message_is_answered_with_how_to_use_the_bot(slack, harness):
    status, _ = await slack.event("message_im.json")
    assert status == 200
    [(method, post)] = [c for c in slack.bot.standin.calls if c[1].get("channel") == "D0DIRECT1"]
    assert method == "chat.postMessage" and "thread_ts" not in post
    assert post["text"].startswith("I run tasks in channels, not in direct messages")
    assert "• `/task status [sub-N]` — show the task" in post["text"]
    try:
        await harness.snapshot(harness.task_id(TEAM, "D0DIRECT1"))
    except TaskNotFound:
        return
    raise AssertionError("a direct message started a task")


async def test_help_in_a_channel_whose_task_has_ended_says_how_to_start_a_new_one(slack, harness):
    channel = new_channel()
    ref = await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    _, cancelled = await slack.slash("/task", "cancel", user=OWNER, channel=channel)
    assert "cancel" in cancelled, cancelled
    await asyncio.wait_for(harness.outcome(ref.task_id), 30)
    expected = render_without_task(COMMANDS.values(), ended=True)
    assert expected.startswith("this channel's task has ended: mention me")
    for text in ("help", ""):
        assert await slack.slash("/task", text, user=OWNER, channel=channel) == (200, expected)
    # A mention here starts a new task: the help does not say one talks to the ended task.
    assert "talk to the task" not in expected and expected.splitlines()[-1].startswith("• `/")
    assert "talk to the task" in render_without_task(COMMANDS.values())
    # The rest say the task has ended and how to start anew; no id, no "did not take".
    _, reply = await slack.slash("/task", "status", user=OWNER, channel=channel)
    assert reply == (
        "this channel's task has ended, so `/task status` has nothing to act on; "
        "mention me with what you need to start a new one"
    )
