"""The per-command filter and the outcome -> reply mapping."""

from __future__ import annotations

from commands import for_command, outcome_reply, run_command
from harness.domain import CommandResult, SetEffort, SetModel
from harness.hooks import HookAbort


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


def test_outcome_reply_maps_each_outcome():
    ok = CommandResult(reply="fine", effects=(SetModel(model="m"),))
    assert outcome_reply("model", result=ok) is ok
    assert outcome_reply("/model", error=HookAbort("no", refusal=True)).reply == "refused: no"
    assert outcome_reply("model", error=ValueError("bad")).reply == "/model failed: bad"
    assert outcome_reply("model", error=KeyError()).reply == "/model failed: KeyError"
    assert outcome_reply("x").reply == "`/task x` is not a command here; `/task help` lists them"
