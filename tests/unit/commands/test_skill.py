"""``/task skill`` (issue 26): bare, it lists the skills of the worker's skills directory."""

from __future__ import annotations

from pathlib import Path

from commands import register_all
from harness.hooks import HookManager
from tests.unit.commands.conftest import MODELS
from tests.unit.commands.running import run_command

ROOT = Path(__file__).resolve().parents[3]


def _manager(skills_dir: Path | None) -> HookManager:
    manager = HookManager()
    register_all(manager, models=MODELS, skills_dir=skills_dir)
    return manager


async def test_bare_lists_the_shipped_skills_with_their_descriptions(ctx):
    reply = (await run_command(_manager(ROOT / "skills"), ctx("skill", sender="UWATCH"))).reply
    assert reply.splitlines() == [
        "skills you can load:",
        "• `arithmetic`: Do arithmetic with the calculator tool instead of in your head.",
        "usage: `/task skill [load|unload <name>]`",
    ]


async def test_a_broken_skill_is_listed_without_its_error_and_folders_without_one_are_not(
    tmp_path, ctx
):
    (tmp_path / "notes").mkdir()  # no SKILL.md: not a skill
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "SKILL.md").write_text("---\nname: other\n---\nx")
    reply = (await run_command(_manager(tmp_path), ctx("skill"))).reply
    assert reply.splitlines()[1:] == [
        "• `broken`: (its SKILL.md cannot be read: the worker's log says why when it is loaded)",
        "usage: `/task skill [load|unload <name>]`",
    ]
    assert str(tmp_path) not in reply


async def test_without_skills_it_says_so(tmp_path, ctx):
    for where in (None, tmp_path):
        reply = (await run_command(_manager(where), ctx("skill"))).reply
        assert reply.startswith("no skills to load here")
