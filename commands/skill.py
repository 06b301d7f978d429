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
from harness.channels import neutral
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
        raise UsageError(command=NAME, problem="say load or unload, and one skill", usage=USAGE)
    return SkillArgs(action=words[0], name=words[1])


async def body(ctx: CommandInvokedContext, args: SkillArgs, config: CommandConfig) -> CommandResult:
    """List the skills, or return the effect; the task replies once the skill is (un)loaded."""
    if not args.action:
        return CommandResult(reply=listing(config))
    effect = LoadSkill(skill=args.name) if args.action == "load" else UnloadSkill(skill=args.name)
    return CommandResult(
        reply=f"skill `{neutral(args.name)}` {args.action}ed",
        effects=(effect,),
        public=True,
    )


def listing(config: CommandConfig) -> str:
    """The skills a task can load, one a line with its description, and how to load one."""
    loader = SkillLoader(config.skills_dir) if config.skills_dir else None
    names = loader.available() if loader else ()
    if loader is None or not names:
        return f"no skills to load here (the worker's skills directory has none)\nusage: `{USAGE}`"
    lines = ["skills you can load:"]
    for name in names:
        try:
            about = loader.read(name).description
        except SkillError:
            about = "(its SKILL.md cannot be read: the worker's log says why when it is loaded)"
        lines.append(f"• `{name}`" + (f": {neutral(about)}" if about else ""))
    return "\n".join([*lines, f"usage: `{USAGE}`"])


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
