"""``/skill``: load a skill into the task's context, or unload it.

The body only decides (a ``load_skill`` / ``unload_skill`` effect); the task workflow
applies it by running ``skill.loaded`` / ``skill.unloaded`` (whose default bodies read
the skill's folder in the worker), so a missing skill is reported by the task.
"""

from __future__ import annotations

from typing import Final, Literal

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness.channels import neutral
from harness.domain import CommandResult, LoadSkill, UnloadSkill
from harness.hooks.contexts import CommandInvokedContext

NAME: Final = "skill"


class SkillArgs(Args):
    """``action`` empty means "show usage"."""

    action: Literal["", "load", "unload"] = ""
    name: str = ""


def parse(text: str) -> SkillArgs:
    """``load <name>`` or ``unload <name>``, or nothing.

    Raises:
        UsageError: anything else.
    """
    words = text.split()
    if not words:
        return SkillArgs()
    if len(words) != 2 or words[0] not in ("load", "unload"):
        raise UsageError(command=NAME, problem="say load or unload, and one skill", usage=USAGE)
    return SkillArgs(action=words[0], name=words[1])


async def body(ctx: CommandInvokedContext, args: SkillArgs, config: CommandConfig) -> CommandResult:
    """Return the effect; the task replies once the skill is (un)loaded."""
    if not args.action:
        return CommandResult(reply=f"usage: `{USAGE}`")
    effect = LoadSkill(skill=args.name) if args.action == "load" else UnloadSkill(skill=args.name)
    return CommandResult(
        reply=f"skill `{neutral(args.name)}` {args.action}ed",
        effects=(effect,),
        public=True,
    )


SPEC: Final = CommandSpec(
    name=NAME,
    summary="load a skill into the task's context, or unload it",
    arguments="load|unload <name>",
    args=SkillArgs,
    parse=parse,
    body=body,
    mutating=True,
)
USAGE: Final = SPEC.usage
