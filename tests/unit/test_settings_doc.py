"""docs/settings.md and the settings classes agree (issue 11): every setting of every process.

The committed file must equal what :mod:`harness.settings_doc` renders, every field must
have a description (its attribute docstring), and every settings class in the packages
must be one of the documented sections, so a new class or field cannot go unlisted.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from harness.settings_doc import COMMAND, DOC, SECTIONS, load, main, render, table

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_settings_doc_is_what_the_classes_render():
    committed = (ROOT / DOC).read_text(encoding="utf-8")
    assert committed == render(), f"docs/settings.md is stale: run `.venv/bin/{COMMAND}`"


def test_every_field_of_every_settings_class_has_a_description():
    undocumented = [
        f"{section.target}.{name}"
        for section in SECTIONS
        for name, info in load(section.target).model_fields.items()
        if not (info.description or "").strip()
    ]
    assert undocumented == [], "give each an attribute docstring (the line after the field)"


def test_every_settings_class_in_the_packages_is_documented():
    found = set()
    for package in ("harness", "bot", "commands"):
        for path in (ROOT / package).rglob("*.py"):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = [getattr(base, "id", getattr(base, "attr", "")) for base in node.bases]
                if "BaseSettings" in bases:
                    found.add(f"{module}:{node.name}")
    assert found == {section.target for section in SECTIONS}


class _Probe(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PROBE_", use_attribute_docstrings=True)

    timeout_seconds: float = Field(default=2.5, gt=0, le=10)
    """How long it waits; see ``token`` and :mod:`harness.config`."""
    token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("VENDOR_TOKEN", "PROBE_TOKEN")
    )
    """A | pipe."""
    names: list[str] = Field(default_factory=lambda: ["a"])
    """Names."""


def test_a_table_names_aliases_bounds_defaults_and_the_variables_its_prose_mentions():
    assert table(_Probe).splitlines()[2:] == [
        "| `PROBE_TIMEOUT_SECONDS` | float, > 0, ≤ 10 | `2.5` | How long it waits; see "
        "`VENDOR_TOKEN` and `harness.config`. |",
        "| `VENDOR_TOKEN`, `PROBE_TOKEN` | secret | unset | A \\| pipe. |",
        '| `PROBE_NAMES` | JSON list of str | `["a"]` | Names. |',
    ]


def test_the_command_in_the_header_writes_the_file(tmp_path, capsys):
    out = tmp_path / "settings.md"
    assert main(["--write", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render()
    assert f"`{COMMAND}`" in render().split("\n## ")[0]
    assert main([]) == 0 and capsys.readouterr().out.endswith(render())
