"""Skill folders: front matter, listing, loading, unloading, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.skills import SkillError, SkillLoader
from harness.skills.frontmatter import FrontMatterError, parse

REPO_SKILLS = Path(__file__).parents[3] / "skills"


def test_front_matter_fields_lists_and_body():
    fields, body = parse(
        "---\nname: x\ntools: [a, 'b']\n# note\ndescription: \"d: e\"\n---\nBody\n"
    )
    assert fields == {"name": "x", "tools": ["a", "b"], "description": "d: e"}
    assert body == "Body"
    assert parse("no header") == ({}, "no header")
    with pytest.raises(FrontMatterError, match="never closed"):
        parse("---\nname: x\n")
    with pytest.raises(FrontMatterError, match="line 2"):
        parse("---\njust words\n---\n")


def test_the_shipped_example_skill_loads():
    loader = SkillLoader(REPO_SKILLS)
    assert "arithmetic" in loader.available()
    skill = loader.load("arithmetic")
    assert skill.tools == ("calculator",)
    assert skill.instructions.startswith("# Arithmetic")
    assert "calculator" in skill.description
    assert loader.loaded == (skill,)
    assert loader.unload("arithmetic") is True
    assert loader.unload("arithmetic") is False
    assert loader.loaded == ()


def write(root: Path, name: str, text: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(text)


def test_refusals(tmp_path):
    write(tmp_path, "liar", "---\nname: other\n---\nx")
    write(tmp_path, "plain", "Just instructions.")
    (tmp_path / "empty").mkdir()
    loader = SkillLoader(tmp_path)
    assert loader.available() == ("liar", "plain")
    assert loader.load("plain").instructions == "Just instructions."
    with pytest.raises(SkillError, match="declares name 'other'"):
        loader.load("liar")
    with pytest.raises(SkillError, match=r"no SKILL\.md"):
        loader.load("empty")
    with pytest.raises(SkillError, match="names are"):
        loader.load("../etc")
    assert SkillLoader(tmp_path / "missing").available() == ()
