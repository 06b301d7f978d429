"""Who sees a reply, what /sub-task answers, and a refusal caught after the body ran."""

from __future__ import annotations

import json
import uuid

import pytest

from harness.domain import Role, TaskSpec
from harness.hooks.contexts import CommandInvokedContext

from .conftest import TEAM

OWNER = "U0OWNER"


@pytest.fixture
async def channel(harness):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    await harness.start_task(
        TaskSpec(title="t", owner=OWNER, model="offline"), team=TEAM, channel=channel
    )
    return channel


async def ack(slack, command, text, *, user=OWNER, channel):
    body = slack.slash_body(command, text, user=user, channel=channel, key=uuid.uuid4().hex)
    status, raw = await slack.post(
        body, slack.build_headers(body, "application/x-www-form-urlencoded")
    )
    assert status == 200
    return json.loads(raw)


@pytest.mark.parametrize(
    ("command", "text", "response_type"),
    [
        ("/model", "gpt-x", "in_channel"),
        ("/effort", "high", "in_channel"),
        ("/task", "invite <@U0NEW> watcher", "in_channel"),
        ("/model", "", "ephemeral"),
        ("/task", "status", "ephemeral"),
        ("/task", "help", "ephemeral"),
        ("/model", "gpt-9", "ephemeral"),  # an error is private
    ],
    ids=["model-set", "effort-set", "invite", "model-show", "status", "help", "bad-model"],
)
async def test_changes_go_to_the_channel_and_everything_else_to_the_sender(
    slack, channel, command, text, response_type
):
    assert (await ack(slack, command, text, channel=channel))["response_type"] == response_type


async def test_a_refusal_is_private(slack, channel):
    reply = await ack(slack, "/model", "gpt-x", user="U0STRANGER", channel=channel)
    assert reply["response_type"] == "ephemeral" and reply["text"].startswith("refused: ")


async def test_subtask_reply_names_the_child_task_as_the_thread_will_not_by_id(
    slack, harness, channel
):
    reply = await ack(slack, "/sub-task", "read the canary logs", channel=channel)
    task_id = harness.task_id(TEAM, channel)
    assert reply == {
        "text": "starting sub-task “read the canary logs” as sub-task 1",
        "response_type": "in_channel",
    }
    [child] = (await harness.snapshot(task_id)).subtasks
    assert child.task_id == f"{task_id}/sub-1"


async def test_a_command_whose_text_says_payload_is_not_lost(slack, harness, channel):
    # bolt alone parses any form body containing "payload" as an empty interactivity payload.
    reply = await ack(slack, "/sub-task", "check the payload size", channel=channel)
    assert reply["text"].startswith("starting sub-task “check the payload size”")
    [child] = (await harness.snapshot(harness.task_id(TEAM, channel))).subtasks
    assert child.title == "check the payload size"


async def test_an_identity_change_caught_on_post_is_a_refusal(slack, harness, manager, channel):
    await ack(slack, "/task", "invite <@U0COLLAB> collaborator", channel=channel)

    async def escalate(ctx: CommandInvokedContext):
        return ctx.model_copy(update={"role": Role.OWNER})

    manager.register("command.invoked.post", escalate, priority=500)
    reply = await ack(slack, "/effort", "low", user="U0COLLAB", channel=channel)
    assert reply == {
        "text": "refused: a hook executor changed the command's sender or role",
        "response_type": "ephemeral",
    }
    assert (await harness.snapshot(harness.task_id(TEAM, channel))).effort == "medium"
