"""Commands as typed in Slack: derived from the registry, none reserved, every one reachable."""

from __future__ import annotations

import pytest

from commands import COMMANDS
from commands.help import render_without_task
from commands.surface import resolve, slash_commands
from harness.domain import Role
from harness.replies import not_heard
from harness.replies.umbrella import RESERVED, UMBRELLA
from tests.unit.commands.running import run_command


def test_the_declared_commands_are_the_top_level_specs_and_the_umbrella():
    declared = [found.command for found in slash_commands(COMMANDS)]
    assert declared == ["/model", "/effort", "/sub-task", "/task"]
    assert [s.name for s in COMMANDS.values() if s.top_level] == ["model", "effort", "sub-task"]


def test_no_declared_command_is_one_slack_keeps_for_itself():
    declared = {found.command.lstrip("/") for found in slash_commands(COMMANDS)}
    assert declared.isdisjoint(RESERVED)
    assert {"status", "invite", "help"} <= RESERVED  # the names the umbrella exists for
    assert UMBRELLA not in RESERVED


def test_every_registry_command_is_reached_by_a_declared_command():
    reached = {name for found in slash_commands(COMMANDS) for name in found.reaches}
    assert reached == set(COMMANDS)
    for spec in COMMANDS.values():
        command, _, rest = f"{spec.invocation} some args".partition(" ")
        assert resolve(command, rest, COMMANDS) == (spec.name, "some args"), spec.name


@pytest.mark.parametrize(
    ("command", "text", "expected"),
    [
        ("/task", "", ("help", "")),
        ("/task", "   ", ("help", "")),
        ("/task", "Status", ("status", "")),
        ("/task", "invite <@U2|w>\twatcher", ("invite", "<@U2|w>\twatcher")),
        ("/task", "model gpt-x", ("model", "gpt-x")),  # top-level ones work under it too
        ("/TASK", "skill\nload x", ("skill", "load x")),
        ("/model", " gpt-x ", ("model", "gpt-x")),
        ("/task", "teleport mars", None),
        ("/status", "", None),  # not a slash command of this app any more
        ("/invite", "<@U2> watcher", None),
        ("/teleport", "", None),
    ],
    ids=lambda v: repr(v),
)
def test_resolve(command, text, expected):
    assert resolve(command, text, COMMANDS) == expected


def test_the_umbrella_escapes_mentions_because_invite_reads_people():
    umbrella = next(f for f in slash_commands(COMMANDS) if f.command == "/task")
    assert COMMANDS["invite"].escapes_mentions and umbrella.should_escape
    under = [spec.name for spec in COMMANDS.values() if not spec.top_level]
    assert umbrella.usage_hint == "|".join(under) + " …"
    assert {"status", "stop", "finish", "cancel", "mid-turn", "budget", "invite"} <= set(under)
    assert not next(f for f in slash_commands(COMMANDS) if f.command == "/model").should_escape


def test_help_without_a_task_says_how_to_start_one_and_lists_the_owners_commands():
    text = render_without_task(COMMANDS.values())
    assert text.startswith("there is no task here yet: mention me with what you need")
    for spec in COMMANDS.values():
        assert f"• `{spec.usage}` — {spec.summary}" in text


async def test_usage_errors_teach_the_typed_form(manager, ctx):
    assert (await run_command(manager, ctx("status", "now"))).reply.endswith(
        "usage: `/task status [sub-N]`"
    )
    assert (await run_command(manager, ctx("skill", "juggle"))).reply.endswith(
        "usage: `/task skill [load|unload <name>]`"
    )


def test_refusals_name_invite_as_it_is_typed():
    # harness cannot import commands: its conversation guard must still agree with the registry.
    invite = COMMANDS["invite"].invocation
    assert f"`{invite}`" in not_heard(Role.NONE, ())
    assert f"`{invite}` you as a collaborator" in not_heard(Role.WATCHER, ())
