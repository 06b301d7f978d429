"""Each command's parse and body, run through a real HookManager with the commands plugin."""

from __future__ import annotations

import pytest

from commands import COMMANDS, UsageError, effort, invite, model, plugin, subtask
from harness.config import Settings
from harness.domain import GrantRole, SetEffort, SetModel, SpawnSubtask
from harness.hooks import HookManager
from tests.unit.commands.running import run_command

from .conftest import REF, SNAPSHOT


async def test_model_without_argument_shows_current_and_available(manager, ctx):
    result = await run_command(manager, ctx("model"))
    assert result.reply == "model: `offline` (available: `gpt-x`, `claude-y`, `offline`)"
    assert result.effects == ()


async def test_model_with_configured_name_returns_set_model_effect(manager, ctx):
    result = await run_command(manager, ctx("/model", "GPT-X"))
    assert result.effects == (SetModel(model="gpt-x"),)
    assert result.reply == "model set to `gpt-x` (was `offline`)"


async def test_model_unknown_name_lists_available_and_changes_nothing(manager, ctx):
    result = await run_command(manager, ctx("model", "gpt-9"))
    assert result.reply == "unknown model `gpt-9`; available: `gpt-x`, `claude-y`, `offline`"
    assert result.effects == ()


async def test_model_same_as_current_has_no_effect(manager, ctx):
    result = await run_command(manager, ctx("model", "offline"))
    assert result.effects == ()
    assert "already" in result.reply


def test_model_parse_rejects_two_words_with_usage():
    with pytest.raises(UsageError, match=r"usage: /model \[name\]"):
        model.parse("gpt-x claude-y")


@pytest.mark.parametrize("text", ["low", "Medium", " HIGH "])
def test_effort_parse_accepts_levels_in_any_case(text):
    assert effort.parse(text).level == text.strip().lower()


async def test_effort_bad_value_is_a_usage_reply_without_effect(manager, ctx):
    result = await run_command(manager, ctx("effort", "extreme"))
    assert result.reply == (
        "effort must be one of low, medium, high\nusage: `/effort [low|medium|high]`"
    )
    assert result.effects == ()


async def test_effort_sets_and_shows(manager, ctx):
    shown = await run_command(manager, ctx("effort"))
    assert shown.reply == "effort: `medium` (choose from low, medium, high)"
    result = await run_command(manager, ctx("effort", "high"))
    assert result.effects == (SetEffort(effort="high"),)


async def test_subtask_empty_text_is_usage_error(manager, ctx):
    result = await run_command(manager, ctx("sub-task", "   "))
    assert result.effects == ()
    assert result.reply.startswith("say what the sub-task should do\nusage: `/sub-task")


async def test_subtask_returns_spawn_effect_inheriting_model_and_effort(manager, ctx):
    result = await run_command(manager, ctx("sub-task", "summarise the logs\nin detail", "UCOLLAB"))
    (effect,) = result.effects
    assert isinstance(effect, SpawnSubtask) and effect.user_id == "UCOLLAB"
    assert effect.subtask.title == "summarise the logs"
    assert effect.subtask.prompt == "summarise the logs\nin detail"
    assert effect.subtask.requested_by == "UCOLLAB"
    assert (effect.subtask.model, effect.subtask.effort) == ("offline", "medium")
    assert result.reply == "starting sub-task “summarise the logs”"


def test_subtask_title_is_cut_with_ellipsis():
    title = subtask.title_of("x" * 200)
    assert len(title) == subtask.TITLE_CHARS and title.endswith("…")


async def test_status_renders_snapshot(manager, ctx):
    result = await run_command(manager, ctx("status", sender="UWATCH"))
    assert result.reply.splitlines() == [
        "*fix the flaky test* — idle",
        "model: `offline` · effort: `medium`",
        "people: <@UOWNER> (owner), <@UCOLLAB> (collaborator), <@UWATCH> (watcher)",
        "now: idle, waiting for a message",
        "mid-turn: `steer` · approvals: the worker's default",
        "budget: tokens 0 (no limit) · tool calls 0 (no limit)",
        "sub-tasks (`/task status sub-N` shows one):",
        "• sub-task 1: read logs — running",
    ]


async def test_status_links_the_workflow_in_the_temporal_ui_when_its_address_is_set(ctx):
    linked = HookManager()
    plugin(
        linked,
        Settings(
            _env_file=None,
            temporal_ui_url="http://127.0.0.1:8233/",
            temporal_namespace="prod ns",
            models=["offline"],
        ),
    )
    ref = REF.model_copy(update={"task_id": "task/T1/C1"})
    snapshot = SNAPSHOT.model_copy(update={"ref": ref})
    result = await run_command(linked, ctx("status", task=ref, snapshot=snapshot))
    assert result.reply.splitlines()[-1] == (
        "workflow: <http://127.0.0.1:8233/namespaces/prod%20ns/workflows/task%2FT1%2FC1"
        "|task/T1/C1> (Temporal UI)"
    )


async def test_status_has_no_link_without_a_temporal_ui_address(ctx):
    unlinked = HookManager()
    plugin(unlinked, Settings(_env_file=None, models=["offline"]))
    result = await run_command(unlinked, ctx("status"))
    assert "workflow:" not in result.reply and "namespaces" not in result.reply


async def test_status_takes_only_a_sub_task(manager, ctx):
    result = await run_command(manager, ctx("status", "now"))
    assert result.reply.startswith("`now` names no sub-task")


async def test_help_is_generated_per_role(manager, ctx):
    owner = (await run_command(manager, ctx("help"))).reply
    watcher = (await run_command(manager, ctx("help", sender="UWATCH"))).reply
    for spec in COMMANDS.values():
        assert f"`{spec.usage}`" in owner
    assert "you are *watcher*" in watcher
    assert "• `/model` — show the task's model, or set it (you can only look)" in watcher
    assert "/sub-task" not in watcher and "/task invite" not in watcher


async def test_invite_by_owner_grants_role(manager, ctx):
    result = await run_command(manager, ctx("invite", "<@UNEW|new.person> collaborator"))
    assert result.effects == (GrantRole(user_id="UNEW", role="collaborator"),)
    assert result.reply == "<@UNEW> is now a collaborator of this task"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("@someone watcher", "is not a Slack mention"),
        ("<@UNEW> owner", "watcher or collaborator"),
        ("<@UNEW>", "name one person and one role"),
    ],
)
def test_invite_parse_errors_explain(text, problem):
    with pytest.raises(UsageError, match=problem):
        invite.parse(text)


async def test_invite_cannot_demote_the_owner_or_repeat_a_role(manager, ctx):
    owner = await run_command(manager, ctx("invite", "<@UOWNER> watcher"))
    again = await run_command(manager, ctx("invite", "<@UWATCH> watcher"))
    assert owner.effects == () and "keeps that role" in owner.reply
    assert again.effects == () and again.reply == "<@UWATCH> is already a watcher"


async def test_unknown_command_says_so(manager, ctx):
    result = await run_command(manager, ctx("teleport", "mars"))
    assert result.reply == "`/task teleport` is not a command here; `/task help` lists them"


def test_snapshot_fixture_is_running():
    assert SNAPSHOT.status == "running"
