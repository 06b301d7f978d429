"""Every role tries every command through real HTTP, bolt and a real worker; replies and state."""

from __future__ import annotations

import uuid

import pytest

from harness.domain import Participant, Role, TaskSpec

from .conftest import TEAM

OWNER, COLLAB, WATCHER, STRANGER = "U0OWNER", "U0COLLAB", "U0WATCH", "U0STRANGER"
ROLES = {OWNER: "owner", COLLAB: "collaborator", WATCHER: "watcher", STRANGER: "none"}
NOT_PART = "refused: you are not part of this task; ask its owner to `/task invite` you"
WATCH_ONLY = "refused: watchers can only look; `{form}` needs a collaborator or the owner"


async def start_task(harness, channel: str) -> str:
    ref = await harness.start_task(
        TaskSpec(title="incident 42", owner=OWNER, model="offline"),
        team=TEAM,
        channel=channel,
        participants=[
            Participant(user_id=OWNER, role=Role.OWNER),
            Participant(user_id=COLLAB, role=Role.COLLABORATOR),
            Participant(user_id=WATCHER, role=Role.WATCHER),
        ],
    )
    return ref.task_id


@pytest.fixture
async def task(harness):
    channel = f"C{uuid.uuid4().hex[:8].upper()}"
    return channel, await start_task(harness, channel)


def expected_model_set(user):
    if user == STRANGER:
        return NOT_PART, "offline"
    if user == WATCHER:
        return WATCH_ONLY.format(form="/model …"), "offline"
    return "model set to `gpt-x` (was `offline`)", "gpt-x"


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_model_set(slack, harness, task, user):
    channel, task_id = task
    status, reply = await slack.slash("/model", "gpt-x", user=user, channel=channel)
    want_reply, want_model = expected_model_set(user)
    assert (status, reply) == (200, want_reply)
    assert (await harness.snapshot(task_id)).model == want_model


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_model_show(slack, harness, task, user):
    channel, _ = task
    status, reply = await slack.slash("/model", user=user, channel=channel)
    shown = "model: `offline` (available: `gpt-x`, `claude-y`, `offline`)"
    assert (status, reply) == (200, NOT_PART if user == STRANGER else shown)


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_effort_set(slack, harness, task, user):
    channel, task_id = task
    _, reply = await slack.slash("/effort", "high", user=user, channel=channel)
    if user in (OWNER, COLLAB):
        assert reply == "effort set to `high` (was `medium`)"
        assert (await harness.snapshot(task_id)).effort == "high"
    else:
        assert reply == (NOT_PART if user == STRANGER else WATCH_ONLY.format(form="/effort …"))
        assert (await harness.snapshot(task_id)).effort == "medium"


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_subtask(slack, harness, task, user):
    channel, task_id = task
    _, reply = await slack.slash("/sub-task", "read the canary logs", user=user, channel=channel)
    subtasks = (await harness.snapshot(task_id)).subtasks
    if user in (OWNER, COLLAB):
        assert reply.startswith("starting sub-task “read the canary logs”")
        assert [s.title for s in subtasks] == ["read the canary logs"]
    else:
        assert reply == (NOT_PART if user == STRANGER else WATCH_ONLY.format(form="/sub-task"))
        assert subtasks == ()


async def test_subtask_without_text_is_a_usage_reply(slack, harness, task):
    channel, task_id = task
    _, reply = await slack.slash("/sub-task", "", user=OWNER, channel=channel)
    assert (
        reply == "say what the sub-task should do\nusage: `/sub-task <what the sub-task should do>`"
    )
    assert (await harness.snapshot(task_id)).subtasks == ()


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_status_and_help(slack, task, user):
    channel, _ = task
    _, status_reply = await slack.slash("/task", "status", user=user, channel=channel)
    _, help_reply = await slack.slash("/task", "help", user=user, channel=channel)
    if user == STRANGER:  # help works anywhere, and shows nothing of the task
        assert status_reply == NOT_PART
        assert help_reply.startswith(
            "you are not part of this task yet: ask its owner to `/task invite` you; "
            "as a collaborator you could use:"
        )
        assert "`/effort [low|medium|high]`" in help_reply
        assert "incident 42" not in help_reply and "`/task invite @person" not in help_reply
        return
    assert status_reply.splitlines()[:3] == [
        "*incident 42* — idle",
        "model: `offline` · effort: `medium`",
        "people: <@U0OWNER> (owner), <@U0COLLAB> (collaborator), <@U0WATCH> (watcher)",
    ]
    assert help_reply.startswith(f"you are *{ROLES[user]}* in this task. commands:")
    assert ("`/task invite @person watcher|collaborator`" in help_reply) == (user == OWNER)


@pytest.mark.parametrize("user", list(ROLES), ids=list(ROLES.values()))
async def test_invite(slack, harness, task, user):
    channel, task_id = task
    _, reply = await slack.slash(
        "/task", "invite <@U0NEW|newbie> collaborator", user=user, channel=channel
    )
    people = {p.user_id: p.role for p in (await harness.snapshot(task_id)).participants}
    if user == OWNER:
        assert reply == "<@U0NEW> is now a collaborator of this task"
        assert people["U0NEW"] == "collaborator"
        _, after = await slack.slash("/model", "claude-y", user="U0NEW", channel=channel)
        assert after == "model set to `claude-y` (was `offline`)"
    else:
        owner_only = "refused: only the task's owner can use `/task invite`"
        assert reply == (NOT_PART if user == STRANGER else owner_only)
        assert "U0NEW" not in people


async def test_bad_model_lists_the_configured_ones(slack, harness, task):
    channel, task_id = task
    _, reply = await slack.slash("/model", "gpt-9", user=OWNER, channel=channel)
    assert reply == "unknown model `gpt-9`; available: `gpt-x`, `claude-y`, `offline`"
    assert (await harness.snapshot(task_id)).model == "offline"


async def test_body_that_raises_gives_failed_reply_and_no_change(slack, harness, manager, task):
    from commands import for_command

    async def broken(ctx):
        raise RuntimeError("provider catalogue unavailable")

    manager.register("command.invoked.in", for_command("model", broken), priority=10)
    channel, task_id = task
    _, reply = await slack.slash("/model", "gpt-x", user=OWNER, channel=channel)
    assert reply == "/model failed: provider catalogue unavailable"
    assert (await harness.snapshot(task_id)).model == "offline"


async def test_a_command_whose_activity_fails_gets_the_one_attempt_its_row_says(
    slack, manager, task
):
    attempts, failed = [], []

    async def flaky(ctx):  # a pre executor failing is the activity failing (retryable)
        attempts.append(ctx.attempt)
        raise RuntimeError("guard store unavailable")

    async def seen(ctx):
        failed.append((ctx.failed_operation, ctx.max_attempts, ctx.result.retry))

    manager.register("command.invoked.pre", flaky, priority=1)
    manager.register("activity.failed.post", seen)
    channel, _ = task
    _, reply = await slack.slash("/model", "gpt-x", user=OWNER, channel=channel)
    assert "failed" in reply
    assert attempts == [1]
    assert failed == [("command.invoked", 1, False)]  # its row says attempts=1


async def test_a_failure_names_the_command_as_typed_under_the_umbrella(slack, manager, task):
    from commands import for_command
    from harness.hooks import HookAbort

    async def broken(ctx):
        raise RuntimeError("status store unavailable")

    async def abandon(ctx):  # not a refusal: the workflow reports the operation failed
        if ctx.command == "invite":
            raise HookAbort("directory unreachable")

    manager.register("command.invoked.in", for_command("status", broken), priority=10)
    manager.register("command.invoked.post", abandon)
    channel, _ = task
    _, reply = await slack.slash("/task", "status", user=OWNER, channel=channel)
    assert reply == "/task status failed: status store unavailable"
    _, reply = await slack.slash(
        "/task", f"invite <@{STRANGER}> watcher", user=OWNER, channel=channel
    )
    assert reply == "/task invite failed: directory unreachable"


async def test_command_in_channel_without_task_explains(slack):
    _, reply = await slack.slash("/model", "gpt-x", user=OWNER, channel="C0NOTASK")
    assert reply.startswith("there is no task in this channel yet")
