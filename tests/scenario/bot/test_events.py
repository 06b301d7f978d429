"""Mentions and thread replies become messages to a task, exactly once; bots and edits do not."""

from __future__ import annotations

import uuid

import pytest

from harness.temporal.errors import TaskNotFound

from .conftest import TEAM, serve_bot


@pytest.fixture
def channel():
    return f"C{uuid.uuid4().hex[:8].upper()}"


async def transcript(harness, channel):
    return await harness.transcript(harness.task_id(TEAM, channel))


async def invite(slack, channel, user="U0COLLAB", role="collaborator"):
    """The owner lets ``user`` talk to the task (a stranger's messages are refused)."""
    status, reply = await slack.slash(
        "/task", f"invite <@{user}> {role}", user="U0OWNER", channel=channel
    )
    assert status == 200 and user in reply, reply


async def test_mention_starts_the_channels_task_and_posts_in_thread(slack, harness, channel):
    status, _ = await slack.event("app_mention.json", channel=channel)
    assert status == 200
    messages = await transcript(harness, channel)
    assert [(m.user, m.text) for m in messages] == [
        ("U0OWNER", "please summarise yesterday's deploy failures")
    ]
    method, args = slack.bot.standin.calls[-1]
    assert method == "chat.postMessage" and args["thread_ts"] == "1700000100.000100"
    assert args["text"].startswith("started a task")
    snapshot = await harness.snapshot(harness.task_id(TEAM, channel))
    assert [(p.user_id, p.role) for p in snapshot.participants] == [("U0OWNER", "owner")]


async def test_retry_and_mention_pair_are_one_message(slack, harness, channel):
    await slack.event("app_mention.json", channel=channel)
    retry = await slack.event(
        "app_mention.json",
        {"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"},
        channel=channel,
    )
    pair = await slack.event("message_with_mention.json", channel=channel)
    assert retry[0] == pair[0] == 200
    assert len(await transcript(harness, channel)) == 1
    assert sum(m == "chat.postMessage" for m, _ in slack.bot.standin.calls) == 1


async def test_thread_reply_reaches_the_task_and_edits_and_bots_do_not(slack, harness, channel):
    await slack.event("app_mention.json", channel=channel)
    await invite(slack, channel)
    await slack.event("message_in_thread.json", channel=channel)
    await slack.event("message_changed.json", channel=channel)
    await slack.event("bot_message_in_thread.json", channel=channel)
    messages = await transcript(harness, channel)
    assert [(m.user, m.text) for m in messages] == [
        ("U0OWNER", "please summarise yesterday's deploy failures"),
        ("U0COLLAB", "also check the canary logs"),
    ]


async def test_plain_message_outside_a_task_thread_is_ignored(slack, harness, channel):
    await slack.event("message_in_thread.json", channel=channel)
    assert slack.bot.standin.calls == []
    with pytest.raises(TaskNotFound):
        await transcript(harness, channel)


async def test_dedupe_survives_a_restart_of_the_bot(harness, worker, tmp_path, channel):
    async for first in serve_bot(harness, tmp_path):
        await first.event("app_mention.json", channel=channel)
    async for second in serve_bot(harness, tmp_path):
        kept = len(second.bot.standin.calls)  # the stand-in keeps its posts across a restart
        status, _ = await second.event(
            "app_mention.json", {"X-Slack-Retry-Num": "2"}, channel=channel
        )
        assert status == 200
        assert second.bot.standin.calls[kept:] == []
    assert len(await transcript(harness, channel)) == 1


async def test_a_second_mention_joins_the_running_task_and_binds_its_thread(
    slack, harness, channel
):
    await slack.event("app_mention.json", channel=channel)
    await slack.event(
        "app_mention.json",
        channel=channel,
        event_id="Ev0SECOND",
        ts="1700000200.000100",
        event_ts="1700000200.000100",
    )
    await invite(slack, channel)
    await slack.event(
        "message_in_thread.json",
        channel=channel,
        thread_ts="1700000200.000100",
        ts="1700000201.000100",
    )
    assert [m.thread for m in await transcript(harness, channel)] == [
        "1700000100.000100",
        "1700000200.000100",
        "1700000200.000100",
    ]
    posts = [args for method, args in slack.bot.standin.calls if method == "chat.postMessage"]
    assert [(p["thread_ts"], p["text"].split(";")[0]) for p in posts] == [
        ("1700000100.000100", "started a task for this channel"),
        ("1700000200.000100", "this channel's task is already running"),
    ]


async def test_a_strangers_thread_reply_is_refused_to_them_alone_and_never_reaches_the_task(
    slack, harness, channel
):
    await slack.event("app_mention.json", channel=channel)
    calls = len(slack.bot.standin.calls)
    status, _ = await slack.event("message_in_thread.json", channel=channel, user="U0STRANGER")
    assert status == 200
    [(method, args)] = slack.bot.standin.calls[calls:]  # nothing public, only this
    assert method == "chat.postEphemeral"
    assert (args["user"], args["channel"], args["thread_ts"]) == (
        "U0STRANGER",
        channel,
        "1700000100.000100",
    )
    assert args["text"] == (
        "refused: you are not part of this task, so its agent did not get your message; "
        "ask <@U0OWNER> to `/task invite` you"
    )
    assert [m.user for m in await transcript(harness, channel)] == ["U0OWNER"]


async def test_a_mentions_slack_markup_reaches_the_transcript_as_plain_text_with_its_lines(
    slack, harness, channel
):
    text = "<@UBOTLOCAL> fish &amp; chips\nthen make it &lt;b&gt;bold&lt;/b&gt; for <@U0OWNER>"
    status, _ = await slack.event("app_mention.json", channel=channel, text=text)
    assert status == 200
    [message] = await transcript(harness, channel)
    assert message.text == "fish & chips\nthen make it <b>bold</b> for <@U0OWNER>"
