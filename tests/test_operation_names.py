"""Each operation's name is written in its context class (its catalogue row), and nowhere else.

A call site names a context class (``run(ToolInvokedContext(...))``), and whatever follows
from the operation comes from its row, so no other non-test module spells an operation
name as a string: a stray literal is a second, unchecked copy of a catalogue fact (issue
25). Points (``tool.invoked.pre``) are executors' registrations and stay where executors
are registered; docstrings and comments may name operations.
"""

from __future__ import annotations

import ast
from pathlib import Path

from harness.hooks import OPERATIONS

ROOT = Path(__file__).resolve().parent.parent

HOME = "harness/hooks/contexts/"
"""Where the rows are: each context class declares its operation's row."""

ALLOWED: dict[tuple[str, str], str] = {}
"""(file, operation) -> why the literal stays."""


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def stray_operation_names(root: Path = ROOT) -> dict[tuple[str, str], list[int]]:
    """(file, operation) -> the lines where a string literal is exactly an operation's name."""
    names = set(OPERATIONS)
    found: dict[tuple[str, str], list[int]] = {}
    for package in ("harness", "bot", "commands"):
        for path in sorted((root / package).rglob("*.py")):
            rel = str(path.relative_to(root))
            if rel.startswith(HOME):
                continue
            tree = ast.parse(path.read_text(), filename=rel)
            docs = _docstrings(tree)
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.Constant)
                    and isinstance(node.value, str)
                    and node.value in names
                    and id(node) not in docs
                ):
                    found.setdefault((rel, node.value), []).append(node.lineno)
    return found


def test_no_operation_name_is_written_outside_its_row_and_its_context():
    strays = {key: lines for key, lines in stray_operation_names().items() if key not in ALLOWED}
    assert strays == {}, "name the context class (Ctx.operation, run(ctx)) or read the row"


def test_the_allow_list_holds_only_what_is_still_there():
    assert set(ALLOWED) <= set(stray_operation_names())


def test_the_scan_finds_a_stray_literal_and_passes_docstrings_points_and_the_home(tmp_path):
    (tmp_path / "harness" / "hooks" / "contexts").mkdir(parents=True)
    (tmp_path / "harness" / "stray.py").write_text(
        '"""Naming tool.invoked here is fine."""\nOP = "tool.invoked"\nPOINT = "tool.invoked.pre"\n'
    )
    (tmp_path / "harness" / "hooks" / "catalogue.py").write_text(
        'ROW = "tool.invoked"\n'
    )  # no table
    (tmp_path / "harness" / "hooks" / "contexts" / "tool.py").write_text('OP = "tool.invoked"\n')
    assert stray_operation_names(tmp_path) == {
        ("harness/stray.py", "tool.invoked"): [2],
        ("harness/hooks/catalogue.py", "tool.invoked"): [1],
    }
