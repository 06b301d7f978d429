"""Default bodies of skill.loaded and skill.unloaded: read a skill's folder, release nothing.

Skill folders are read by :class:`~harness.skills.SkillLoader`; a loaded skill's
instructions live in the task's state, which the loop updates.
"""

from __future__ import annotations

import logging
from typing import Final, Self, final

from harness import replies
from harness.bodies.marker import Bodies, Wiring, body
from harness.domain import Skill
from harness.hooks import HookAbort
from harness.hooks.contexts import SkillLoadedContext, SkillUnloadedContext
from harness.skills import SkillError, SkillLoader

log: Final = logging.getLogger(__name__)


@final
class SkillBodies(Bodies):
    """Bodies of skills.

    Args:
        skills: reads skill folders.
    """

    def __init__(self, *, skills: SkillLoader) -> None:
        self.skills = skills

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(skills=wiring.deps.skills)

    @body(SkillLoadedContext)
    async def skill_loaded(self, ctx: SkillLoadedContext) -> SkillLoadedContext:
        """Read the skill's folder.

        Raises:
            HookAbort: no such skill, or its ``SKILL.md`` is malformed.
        """
        try:
            info = self.skills.read(ctx.name, ctx.path)
        except SkillError as error:
            # What is wrong, with its paths, is the log's; the thread reads which skill.
            log.warning("skill %s not loaded: %s", error.name, error.detail)
            raise HookAbort(replies.skill_unavailable(error.name, missing=error.missing)) from error
        # A plain Skill, not SkillInfo: the context's result type is closed (extra=forbid).
        skill = Skill(name=info.name, instructions=info.instructions, tools=info.tools)
        return ctx.model_copy(update={"result": skill})

    @body(SkillUnloadedContext)
    async def skill_unloaded(self, ctx: SkillUnloadedContext) -> SkillUnloadedContext:
        """Nothing to release: instructions live in the task's state, which the loop updates."""
        return ctx.model_copy(update={"result": True})
