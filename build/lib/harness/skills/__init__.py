"""Skills: folders of instructions (and tool names) a task loads into its model's context."""

from __future__ import annotations

from harness.skills.loader import SKILL_FILE, SkillError, SkillInfo, SkillLoader

__all__ = ["SKILL_FILE", "SkillError", "SkillInfo", "SkillLoader"]
