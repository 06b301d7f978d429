"""Contexts of skills: folders of instructions (and optional tools) loaded into a task's context."""

from __future__ import annotations

from harness.domain import Skill
from harness.hooks.contexts.base import HookContext


class SkillLoadedContext(HookContext, operation="skill.loaded", local=True):
    """A skill is loaded into a task; the body returns it as loaded."""

    name: str
    path: str = ""
    result: Skill | None = None


class SkillUnloadedContext(HookContext, operation="skill.unloaded", local=True):
    """A skill is removed from a task; the body returns whether it was loaded."""

    name: str
    result: bool | None = None
