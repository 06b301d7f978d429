"""Skills on disk: a folder per skill with a ``SKILL.md`` (front matter + instructions).

``SKILL.md`` starts with front matter naming the skill, describing it and listing
the tools it brings (names from the worker's tool registry)::

    ---
    name: arithmetic
    description: Careful arithmetic with the calculator tool.
    tools: [calculator]
    ---
    Instructions for the model, in markdown.

The loader lists, loads and unloads; which skills a *task* has loaded is task state
kept by the loop (``skill.loaded``/``skill.unloaded`` bodies call this loader).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final, final

from harness.domain import Skill
from harness.errors import HarnessError
from harness.skills.frontmatter import FrontMatterError, parse

SKILL_FILE: Final = "SKILL.md"
_NAME: Final = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_INSTRUCTIONS: Final = 32 * 1024


class SkillError(HarnessError):
    """A skill is missing or its folder is not a valid skill.

    Args:
        name: the skill asked for.
        detail: what is wrong (paths and all: for the log, never a thread).
        missing: there is no skill of that name (rather than a folder that is not one).
    """

    def __init__(self, *, name: str, detail: str, missing: bool = False) -> None:
        self.name = name
        self.detail = detail
        self.missing = missing
        super().__init__(f"skill {name!r}: {detail}")


class SkillInfo(Skill):
    """A skill as found on disk: :class:`Skill` plus its description and folder."""

    description: str = ""
    path: str = ""


@final
class SkillLoader:
    """Finds skills under ``root`` (one folder each) and keeps the loaded ones.

    Args:
        root: the skills directory (``Settings.skills_dir``).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._loaded: dict[str, SkillInfo] = {}

    def available(self) -> tuple[str, ...]:
        """Names of the skill folders under ``root`` that have a ``SKILL.md``, sorted."""
        if not self.root.is_dir():
            return ()
        return tuple(sorted(p.name for p in self.root.iterdir() if (p / SKILL_FILE).is_file()))

    def read(self, name: str, path: str = "") -> SkillInfo:
        """Read skill ``name`` from its folder (``path`` overrides ``root/name``).

        Raises:
            SkillError: no such skill, an unsafe name, or a malformed ``SKILL.md``.
        """
        if not path and not _NAME.fullmatch(name):
            raise SkillError(
                name=name, detail="names are lower-case letters, digits, - and _", missing=True
            )
        folder = Path(path) if path else self.root / name
        file = folder / SKILL_FILE
        if not file.is_file():
            raise SkillError(name=name, detail=f"no {SKILL_FILE} in {folder}", missing=True)
        try:
            fields, body = parse(file.read_text(encoding="utf-8"))
        except FrontMatterError as error:
            raise SkillError(name=name, detail=f"{file}: {error}") from error
        declared = fields.get("name", name)
        if declared != name:
            raise SkillError(name=name, detail=f"{file} declares name {declared!r}")
        tools = fields.get("tools", [])
        if isinstance(tools, str):
            tools = [t.strip() for t in tools.split(",") if t.strip()]
        if len(body) > MAX_INSTRUCTIONS:
            raise SkillError(name=name, detail=f"instructions over {MAX_INSTRUCTIONS} characters")
        description = fields.get("description", "")
        return SkillInfo(
            name=name,
            instructions=body,
            tools=tuple(tools),
            description=description if isinstance(description, str) else ", ".join(description),
            path=str(folder),
        )

    def load(self, name: str, path: str = "") -> SkillInfo:
        """Read and remember skill ``name`` (loading it again re-reads it).

        Raises:
            SkillError: see :meth:`read`.
        """
        skill = self.read(name, path)
        self._loaded[name] = skill
        return skill

    def unload(self, name: str) -> bool:
        """Forget skill ``name``; whether it was loaded."""
        return self._loaded.pop(name, None) is not None

    @property
    def loaded(self) -> tuple[SkillInfo, ...]:
        """The loaded skills, in load order."""
        return tuple(self._loaded.values())

    def get(self, name: str) -> SkillInfo | None:
        """The loaded skill ``name``, if loaded."""
        return self._loaded.get(name)
