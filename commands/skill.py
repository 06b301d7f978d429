"""``/task skill``: list the skills there are, load one into the task's context, or unload it.

Bare, it lists the skills in the worker's skills directory with their descriptions (a
lookup, read here in the command's activity). Otherwise the body only decides (a
``load_skill`` / ``unload_skill`` effect); the task workflow applies it by running
``skill.loaded`` / ``skill.unloaded`` (whose default bodies read the skill's folder in the
worker), so a missing skill is reported by the task.
"""

from __future__ import annotations

from typing import Final, Literal

from commands.spec import Args, CommandConfig, CommandSpec, UsageError
from harness import replies
from harness.domain import CommandResult, LoadSkill, UnloadSkill
from harness.hooks.contexts import CommandInvokedContext
from harness.skills import SkillError, SkillLoader

NAME: Final = "skill"


class SkillArgs(Args):
    """``action`` empty means "list the skills"."""

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
        raise UsageError(command=NAME, problem=replies.SKILL_ACTION, usage=USAGE)
    return SkillArgs(action=words[0], name=words[1])


async def body(ctx: CommandInvokedContext, args: SkillArgs, config: CommandConfig) -> CommandResult:
    """List the skills, or return the effect; the task replies once the skill is (un)loaded."""
    if not args.action:
        return CommandResult(reply=listing(config))
    effect = LoadSkill(skill=args.name) if args.action == "load" else UnloadSkill(skill=args.name)
    return CommandResult(
        reply=replies.skill_changed(args.name, args.action),
        effects=(effect,),
        public=True,
    )


def listing(config: CommandConfig) -> str:
    """The skills a task can load, one a line with its description, and how to load one."""
    loader = SkillLoader(config.skills_dir) if config.skills_dir else None
    names = loader.available() if loader else ()
    skills = []
    for name in names:
        try:
            about = loader.read(name).description if loader is not None else ""
        except SkillError:
            about = replies.SKILL_UNREADABLE
        skills.append((name, about))
    return replies.skills_listed(tuple(skills), USAGE)


SPEC: Final = CommandSpec(
    name=NAME,
    summary="list the skills, or load one into the task's context, or unload it",
    arguments="[load|unload <name>]",
    args=SkillArgs,
    parse=parse,
    body=body,
    mutating=True,
)
USAGE: Final = SPEC.usage
