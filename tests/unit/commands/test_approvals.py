"""``/task approvals``: anyone sees the default and the standing approvals; the owner sets it."""

from __future__ import annotations

import pytest

from commands import UsageError, approvals
from harness.domain import SetApprovals
from tests.unit.commands.running import run_command

from .conftest import SNAPSHOT


async def test_bare_shows_the_default_what_each_means_and_the_standing_approvals(manager, ctx):
    snapshot = SNAPSHOT.model_copy(
        update={"approved_tools": ("write_artefact",), "approvals": "safe"}
    )
    result = await run_command(manager, ctx("approvals", sender="UWATCH", snapshot=snapshot))
    assert result.reply.splitlines() == [
        "approvals: `safe`",
        "• `strict`: a person approves every tool call, except tools that only read",
        "• `safe` (now): a person approves calls of the tools that require approval",
        "• `off`: no tool call waits for a person (rules that deny still deny)",
        "approved for the rest of the task: `write_artefact`",
    ]
    assert result.effects == ()


async def test_a_task_without_its_own_default_says_it_follows_the_workers(manager, ctx):
    result = await run_command(manager, ctx("approvals"))  # the snapshot's approvals is None
    first, *choices = result.reply.splitlines()
    assert (
        first == "approvals: the worker's default (the hooks file's `[approvals] default`, "
        "else `safe`)"
    )
    assert len(choices) == 3 and not any("(now)" in line for line in choices)


async def test_the_owner_sets_it(manager, ctx):
    result = await run_command(manager, ctx("approvals", " Strict "))
    assert result.effects == (SetApprovals(approvals="strict", user_id="UOWNER"),)
    assert result.reply.startswith("approvals set to `strict` (was the worker's default")


@pytest.mark.parametrize("sender", ["UCOLLAB", "UWATCH", "USTRANGER"])
async def test_only_the_owner_sets_it(manager, ctx, sender):
    result = await run_command(manager, ctx("approvals", "off", sender=sender))
    assert result.reply.startswith("refused: ")
    assert result.effects == ()


async def test_same_default_changes_nothing(manager, ctx):
    snapshot = SNAPSHOT.model_copy(update={"approvals": "off"})
    result = await run_command(manager, ctx("approvals", "off", snapshot=snapshot))
    assert (result.reply, result.effects) == ("approvals are already `off`", ())


@pytest.mark.parametrize("text", ["never", "strict please", "<script>"])
def test_anything_else_is_a_usage_error_naming_the_choices(text):
    with pytest.raises(
        UsageError,
        match=r"one of strict, safe, off\nusage: "
        r"/task approvals \[strict\|safe\|off\]",
    ):
        approvals.parse(text)
