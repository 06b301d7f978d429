"""docs/architecture.md's map of who imports whom is the code's: a test reads both.

The map is a fenced block after the marker ``<!-- imports -->``: one line a unit, ``unit:
what it imports``. A unit is ``commands``, ``bot`` or one of its sub-packages, or a direct
child (package or module) of ``harness``; any import counts (module level, inside a
function, under ``TYPE_CHECKING``). A change that adds or drops an arrow fails here with the
block as it should read, so the map is updated in the change that moves the arrow.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
_BLOCK = re.compile(r"<!-- imports -->\s*```text\n(?P<body>.*?)```", re.S)


def _unit(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] == "commands":
        return "commands"
    if parts[0] == "bot":
        sub = parts[1] if len(parts) > 1 else ""
        return f"bot.{sub}" if sub and (ROOT / "bot" / sub).is_dir() else "bot"
    if parts[0] == "harness":
        return "harness" if len(parts) == 1 else f"harness.{parts[1]}"
    return None


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT).with_suffix("")
    parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
    return ".".join(parts)


def _imported(path: Path) -> set[str]:
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # ``from harness import replies`` imports the module harness.replies, not just
            # the package's own names: an alias that is a submodule is the import.
            found.update(
                f"{module}.{alias.name}" if _is_module(f"{module}.{alias.name}") else module
                for alias in node.names
            )
    return found


def _is_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def actual_map() -> dict[str, set[str]]:
    """Each unit -> the other units its modules import."""
    arrows: dict[str, set[str]] = {}
    for package in ("harness", "bot", "commands"):
        for path in sorted((ROOT / package).rglob("*.py")):
            source = _unit(_module_name(path))
            assert source is not None
            targets = {_unit(m) for m in _imported(path)} - {None, source}
            arrows.setdefault(source, set()).update(t for t in targets if t is not None)
    return arrows


def render(arrows: dict[str, set[str]]) -> str:
    return "".join(
        f"{unit}: {', '.join(sorted(deps)) or '(nothing of ours)'}\n"
        for unit, deps in sorted(arrows.items())
    )


def test_the_documented_import_map_is_the_code_s():
    found = _BLOCK.search(DOC.read_text())
    assert found, f"{DOC.name} has no '<!-- imports -->' block"
    expected = render(actual_map())
    assert found["body"] == expected, f"docs/architecture.md's import map should read:\n{expected}"
