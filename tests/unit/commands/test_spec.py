"""The per-command filter and the outcome -> reply mapping."""

from __future__ import annotations

from commands import for_command
from harness.domain import CommandResult, SetEffort, SetModel
from harness.domain.outcome import Asked, Done, Failed, Refused
from harness.temporal.workflow.command_step import command_result
from tests.unit.commands.running import run_command


async def test_filtered_body_never_sees_other_commands(manager, ctx):
    seen = []

    async def model_body(c):
        seen.append((c.command, c.args))
        return c.model_copy(update={"result": CommandResult(reply="custom model")})

    manager.register("command.invoked.in", for_command("model", model_body), priority=10)
    effort = await run_command(manager, ctx("effort", "high"))
    model = await run_command(manager, ctx("/model", "gpt-x"))
    assert seen == [("/model", "gpt-x")]
    assert effort.effects == (SetEffort(effort="high"),)
    assert model.reply == "custom model"


async def test_body_that_raises_becomes_failed_reply_without_effects(manager, ctx):
    async def boom(c):
        raise RuntimeError("provider exploded")

    manager.register("command.invoked.in", for_command("effort", boom), priority=10)
    result = await run_command(manager, ctx("effort", "high"))
    assert result == CommandResult(reply="/effort failed: provider exploded")


async def test_post_replacement_becomes_the_reply(manager, ctx):
    async def shout(c):
        return c.model_copy(update={"result": CommandResult(reply=c.result.reply.upper())})

    manager.register("command.invoked.post", shout)
    result = await run_command(manager, ctx("effort"))
    assert result.reply == "EFFORT: `MEDIUM` (CHOOSE FROM LOW, MEDIUM, HIGH)"


def test_the_command_step_maps_each_outcome(ctx):
    """The rule the workflow applies (harness.temporal.workflow.command_step.command_result): a
    refusal, an ask, a failure, a non-refusal abort, an unanswered command, a done one."""
    sent = ctx("model", "m", invocation="/model")
    ok = CommandResult(reply="fine", effects=(SetModel(model="m"),))
    assert command_result(sent, Done(sent.model_copy(update={"result": ok}))) is ok
    no = Refused(reason="no", point="command.invoked.in", deliberate=True)
    assert command_result(sent, no) == CommandResult(reply="refused: no")
    pre = Refused(reason="closed", point="command.invoked.pre", deliberate=False)
    assert command_result(sent, pre).reply == "refused: closed"
    asked = Asked(reason="needs a person", point="command.invoked.pre")
    assert command_result(sent, asked).reply == "refused: needs a person"
    broke = Refused(reason="policy down", point="command.invoked.in", deliberate=False)
    assert command_result(sent, broke).reply == "/model failed: policy down"
    failed = Failed(operation="command.invoked", error_type="KeyError", error_message="'x'")
    said = command_result(sent, failed).reply
    assert said.startswith("/model failed: something went wrong") and "KeyError" not in said
    unknown = ctx("x", invocation="/task x")
    assert command_result(unknown, Done(unknown)).reply == (
        "`/task x` is not a command here; `/task help` lists them"
    )
