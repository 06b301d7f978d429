"""``python -m bot.say`` as a user runs it: a subprocess talking to the real bot over HTTP.

The bot is the scenario tier's (real bolt app, real worker, local stand-in); the
CLI reads its signing secret from the environment as it would in a shell.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
import uuid
from pathlib import Path

import pytest

from harness.domain import TaskSpec

from .conftest import Slack, free_port, serve_bot

ROOT = Path(__file__).resolve().parents[3]
TEAM = "TLOCAL"  # bot.say's default team
OWNER = "U0OWNER"


async def say(
    *args: str, secret: str = Slack.signing_secret, typed: str = ""
) -> tuple[int, list[str]]:
    """Run ``python -m bot.say``; returns its exit status and printed lines.

    ``typed``: a command line as a person types it (a hint the product printed), run with
    no virtual environment on ``PATH``; ``args`` follow it.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "BOT_"))}
    env.update(BOT_SIGNING_SECRET=secret, BOT_REPLY_DEADLINE_SECONDS="5")
    command = [sys.executable, "-m", "bot.say"]
    if typed:
        command = shlex.split(typed)
        env.pop("VIRTUAL_ENV", None)
        env["PATH"] = "/usr/bin:/bin"
    process = await asyncio.create_subprocess_exec(
        *command,
        *args,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert err.decode() == "", err.decode()
    return process.returncode or 0, out.decode().splitlines()


@pytest.fixture
def channel() -> str:
    return f"C{uuid.uuid4().hex[:8].upper()}"


async def test_a_mention_prints_what_the_bot_posted_and_a_thread_reply_is_accepted(
    slack, harness, channel
):
    status, lines = await say(
        "please fix the build", "--user", OWNER, "--channel", channel, "--url", slack.url
    )
    task_id = harness.task_id(TEAM, channel)
    [(method, post)] = slack.bot.standin.calls[-1:]
    assert method == "chat.postMessage"
    assert status == 0
    assert lines == [f"bot in thread {post['thread_ts']}: {post['text']}"]
    assert post["text"].startswith("started a task")

    status, lines = await say(
        "and run the linter",
        "--user",
        OWNER,
        "--channel",
        channel,
        "--thread",
        post["thread_ts"],
        "--url",
        slack.url,
    )
    assert status == 0
    assert lines == [
        "accepted; nothing posted in reply yet (the task answers in its thread "
        "when it has an answer)"
    ]
    texts = [m.text for m in await harness.transcript(task_id)]
    assert texts == ["please fix the build", "and run the linter"]


async def test_slash_commands_print_the_reply_and_say_when_it_went_to_the_channel(
    slack, harness, channel
):
    await say("start", "--user", OWNER, "--channel", channel, "--url", slack.url)
    status, lines = await say("/model", "--user", OWNER, "--channel", channel, "--url", slack.url)
    assert status == 0
    assert lines == ["model: `offline` (available: `gpt-x`, `claude-y`, `offline`)"]

    status, lines = await say(
        "/model gpt-x", "--user", OWNER, "--channel", channel, "--url", slack.url
    )
    assert status == 0
    assert lines == ["model set to `gpt-x` (was `offline`)", "(posted to the channel for everyone)"]
    assert (await harness.snapshot(harness.task_id(TEAM, channel))).model == "gpt-x"


async def test_a_wrong_signing_secret_is_explained_and_fails(slack, channel):
    status, lines = await say(
        "/model", "--channel", channel, "--url", slack.url, secret="not-the-bots-secret"
    )
    assert status == 1
    assert lines == [
        "HTTP 401: invalid signature or timestamp",
        "(signature rejected: the bot uses another signing secret than this shell)",
    ]


async def test_no_bot_listening_is_explained_and_fails():
    url = f"http://127.0.0.1:{free_port()}/slack/events"
    status, lines = await say("/model", "--url", url)
    assert status == 1
    assert lines == [f"no bot is listening at {url}; start it with `make run` (or `python -m bot`)"]


async def test_a_late_reply_is_printed_as_it_replaced_the_working_note(
    harness, manager, worker, tmp_path, channel
):
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )

    async def slow(ctx):
        await asyncio.sleep(0.6)

    manager.register("command.invoked.pre", slow, priority=200)
    async for slack in serve_bot(harness, tmp_path, ack_budget_seconds=0.2):
        status, lines = await say(
            "/effort low", "--user", OWNER, "--channel", channel, "--url", slack.url
        )
    assert status == 0
    assert lines == [
        "working on `/effort low` …",
        "effort set to `low` (was `medium`)",
        "(posted to the channel for everyone)",
    ]


async def test_a_refusal_only_the_sender_sees_is_printed_as_such(slack, harness, channel):
    await say("start", "--user", OWNER, "--channel", channel, "--url", slack.url)
    [post] = [a for m, a in slack.bot.standin.calls if m == "chat.postMessage"][:1]
    status, lines = await say(
        "let me in",
        "--user",
        "U0STRANGER",
        "--channel",
        channel,
        "--thread",
        post["thread_ts"],
        "--url",
        slack.url,
    )
    assert status == 0
    assert lines == [
        f"only you see (in thread {post['thread_ts']}): refused: you are not part of this task, "
        "so its agent did not get your message; ask <@U0OWNER> to `/task invite` you"
    ]


async def test_bot_say_signs_with_the_development_secret_against_a_default_local_bot(
    harness, worker, tmp_path, channel
):
    async for slack in serve_bot(harness, tmp_path, signing_secret=""):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "BOT_"))}
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot.say",
            "/model",
            "--channel",
            channel,
            "--url",
            slack.url,
            cwd=ROOT,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, out
    assert out.decode().startswith("there is no task in this channel yet")
