"""The role guard and the identity seal, on a real HookManager."""

from __future__ import annotations

import pytest

from harness.domain import CommandResult, Role
from harness.hooks import ROLE_GUARD_PRIORITY, HookAbort
from tests.unit.commands.running import run_command


async def test_sender_without_role_is_refused(manager, ctx):
    result = await run_command(manager, ctx("status", sender="USTRANGER"))
    assert result == CommandResult(
        reply="refused: you are not part of this task; ask its owner to `/task invite` you"
    )


async def test_stranger_gets_help_not_a_refusal(manager, ctx):
    result = await run_command(manager, ctx("help", sender="USTRANGER"))
    assert result.reply.startswith("you are not part of this task yet: ask its owner to")
    assert "• `/task status [sub-N]`" in result.reply and "• `/task invite" not in result.reply


async def test_stranger_is_refused_even_for_unknown_commands(manager, ctx):
    result = await run_command(manager, ctx("teleport", sender="USTRANGER"))
    assert result.reply == "refused: you are not part of this task"


@pytest.mark.parametrize(("command", "args"), [("model", "gpt-x"), ("effort", "high")])
async def test_watcher_setting_is_refused_without_effects(manager, ctx, command, args):
    result = await run_command(manager, ctx(command, args, sender="UWATCH"))
    assert result.effects == ()
    assert result.reply == (
        f"refused: watchers can only look; `/{command} …` needs a collaborator or the owner"
    )


async def test_watcher_subtask_is_refused_even_bare(manager, ctx):
    result = await run_command(manager, ctx("sub-task", "", sender="UWATCH"))
    assert result.reply.startswith("refused: watchers can only look; `/sub-task`")


async def test_watcher_may_show_model(manager, ctx):
    result = await run_command(manager, ctx("model", sender="UWATCH"))
    assert result.reply.startswith("model: `offline`")


async def test_collaborator_may_set_but_not_invite(manager, ctx):
    assert (await run_command(manager, ctx("model", "gpt-x", sender="UCOLLAB"))).effects
    invite = await run_command(manager, ctx("invite", "<@UX> watcher", sender="UCOLLAB"))
    assert invite.reply == "refused: only the task's owner can use `/task invite`"


async def test_refusal_is_recorded_by_the_manager(manager, ctx):
    await run_command(manager, ctx("model", "gpt-x", sender="UWATCH"))
    (record,) = manager.aborts
    assert record.refusal and record.point == "command.invoked.pre"
    assert record.executor == "commands.guard.RoleGuard"


@pytest.mark.parametrize(
    "priority", [0, ROLE_GUARD_PRIORITY - 1, ROLE_GUARD_PRIORITY + 1], ids=["early", "99", "late"]
)
async def test_executor_raising_privileges_is_refused(manager, ctx, priority):
    async def escalate(c):
        return c.model_copy(update={"role": Role.OWNER})

    manager.register("command.invoked.pre", escalate, priority=priority)
    result = await run_command(manager, ctx("model", "gpt-x", sender="UWATCH"))
    assert result.effects == ()
    assert result.reply.startswith("refused: ")


async def test_executor_swapping_the_sender_is_refused(manager, ctx):
    async def impersonate(c):
        return c.model_copy(update={"sender": "UOWNER", "role": Role.OWNER})

    manager.register("command.invoked.pre", impersonate, priority=10)
    result = await run_command(manager, ctx("invite", "<@UWATCH> collaborator", sender="UWATCH"))
    assert result == CommandResult(
        reply="refused: a hook executor changed the command's sender or role"
    )


async def test_body_changing_participants_is_refused_at_post(manager, ctx):
    async def forge(c):
        return c.model_copy(update={"participants": ()})

    manager.register("command.invoked.in", forge, priority=5)
    result = await run_command(manager, ctx("model", "gpt-x", sender="UCOLLAB"))
    assert result.effects == () and result.reply.startswith("refused: a hook executor changed")


async def test_seals_are_forgotten_after_every_outcome(manager, ctx):
    await run_command(manager, ctx("model", "gpt-x"))
    await run_command(manager, ctx("model", "gpt-x", sender="UWATCH"))
    seal = manager.registrations("command.invoked.pre")[0].executor.seal
    assert len(seal) == 0


async def test_an_abort_that_is_not_a_refusal_is_a_failure(manager, ctx):
    async def broken(c):
        raise HookAbort("policy server unreachable")

    manager.register("command.invoked.in", broken, priority=10)
    result = await run_command(manager, ctx("model", "gpt-x"))
    assert result == CommandResult(reply="/model failed: policy server unreachable")
    status = await run_command(manager, ctx("status"))  # spelled as typed, under the umbrella
    assert status == CommandResult(reply="/task status failed: policy server unreachable")


async def test_any_abort_before_the_body_is_a_refusal_as_in_the_workflow(manager, ctx):
    async def broken(c):
        raise HookAbort("policy server unreachable")

    manager.register("command.invoked.pre", broken, priority=200)
    result = await run_command(manager, ctx("model", "gpt-x"))
    assert result == CommandResult(reply="refused: policy server unreachable")
