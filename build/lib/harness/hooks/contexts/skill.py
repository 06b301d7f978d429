"""Contexts of skills: folders of instructions (and optional tools) loaded into a task's context."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import Skill
from harness.hooks.contexts.base import HookContext


class SkillLoadedContext(HookContext):
    """A skill is loaded into a task; the body returns it as loaded."""

    operation: ClassVar[str] = "skill.loaded"
    name: str
    path: str = ""
    result: Skill | None = None


class SkillUnloadedContext(HookContext):
    """A skill is removed from a task; the body returns whether it was loaded."""

    operation: ClassVar[str] = "skill.unloaded"
    name: str
    result: bool | None = None
