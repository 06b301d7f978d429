"""Each operation's name is written in its context class (its catalogue row), and nowhere else.

A call site names a context class (``run(ToolInvokedContext(...))``), and whatever follows
from the operation comes from its row, so no other non-test module spells an operation
name or a hook point in a string: not as the whole literal, not inside a longer one, not in
a part of an f-string. A stray one is a second, unchecked copy of a catalogue fact (issue
25), and in a message it may reach a person (a hook point is internal, DESIGN's reply
rule). Documentation may name operations: docstrings (attribute docstrings too), comments,
and the text of log calls. So may an executor's registration (``manager.register(point,
...)``), which is where points are written. ``shutdown``, the one name without a dot, is an
English word too: it counts only as a whole literal or in a point.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from harness.hooks import OPERATIONS, PHASES

ROOT = Path(__file__).resolve().parent.parent

HOME = "harness/hooks/contexts/"
"""Where the rows are: each context class declares its operation's row."""

ALLOWED: dict[tuple[str, str], str] = {}
"""(file, operation or point) -> why the literal stays."""

LOG_METHODS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})
"""A call of one of these on a ``log``/``logger`` is a log line: documentation, for operators."""


def _pattern() -> re.Pattern[str]:
    """An operation's name, and its point when a phase follows, inside any text."""
    dotted = sorted((re.escape(op) for op in OPERATIONS if "." in op), key=len, reverse=True)
    words = [re.escape(op) for op in OPERATIONS if "." not in op]
    phases = "|".join(PHASES)
    return re.compile(
        rf"(?<![\w.])(?:(?:{'|'.join(dotted)})(?:\.(?:{phases}))?"
        rf"|(?:{'|'.join(words)})\.(?:{phases}))(?![\w])"
    )


def _documentation(tree: ast.AST) -> set[int]:
    """The string nodes that document: bare string statements, log calls' arguments, and the
    point an executor is registered at."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))  # a docstring, or an attribute's docstring
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        receiver = ast.unparse(node.func.value).rsplit(".", 1)[-1].lower()
        if node.func.attr in LOG_METHODS and receiver.endswith(("log", "logger")):
            for arg in (*node.args, *(keyword.value for keyword in node.keywords)):
                found.update(id(inner) for inner in ast.walk(arg))
        elif node.func.attr == "register" and node.args:
            found.update(id(inner) for inner in ast.walk(node.args[0]))
    return found


def stray_operation_names(root: Path = ROOT) -> dict[tuple[str, str], list[int]]:
    """(file, operation or point) -> the lines of string literals (or f-string parts) that
    are an operation's name or hold one, or a point."""
    names = set(OPERATIONS)
    pattern = _pattern()
    found: dict[tuple[str, str], list[int]] = {}
    for package in ("harness", "bot", "commands"):
        for path in sorted((root / package).rglob("*.py")):
            rel = str(path.relative_to(root))
            if rel.startswith(HOME):
                continue
            tree = ast.parse(path.read_text(), filename=rel)
            docs = _documentation(tree)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
                    continue
                if id(node) in docs:
                    continue
                hits = {node.value} & names | {m.group(0) for m in pattern.finditer(node.value)}
                for hit in sorted(hits):
                    found.setdefault((rel, hit), []).append(node.lineno)
    return found


def test_no_operation_name_is_written_outside_its_row_and_its_context():
    strays = {key: lines for key, lines in stray_operation_names().items() if key not in ALLOWED}
    assert strays == {}, "name the context class (Ctx.operation, run(ctx)) or read the row"


def test_the_allow_list_holds_only_what_is_still_there():
    assert set(ALLOWED) <= set(stray_operation_names())


def test_the_scan_finds_a_stray_literal_and_passes_documentation_registrations_and_the_home(
    tmp_path,
):
    (tmp_path / "harness" / "hooks" / "contexts").mkdir(parents=True)
    (tmp_path / "harness" / "stray.py").write_text(
        '"""Naming tool.invoked here is fine."""\n'
        'OP = "tool.invoked"\n'
        'POINT = "tool.invoked.pre"\n'
        '"""An attribute docstring may name llm.invoked."""\n'
        'WHY = "no request.received body routed it"\n'
        'said = f"heartbeat.tick stopped {op} after {s}s"\n'
        'log.warning("llm.invoked gave %s", why)\n'
        'workflow.logger.info(f"step.started {n}")\n'
        'manager.register("command.invoked.pre", guard)\n'
        'manager.registrations("persistence.read.in")\n'
        'NOTE = "the worker is shutting down: a shutdown, not shutdown.pre"\n'
        'PROSE = "a tool.invoked_by field and tool.invokedx are no names"\n'
    )
    (tmp_path / "harness" / "hooks" / "catalogue.py").write_text(
        'ROW = "tool.invoked"\n'
    )  # no table
    (tmp_path / "harness" / "hooks" / "contexts" / "tool.py").write_text('OP = "tool.invoked"\n')
    assert stray_operation_names(tmp_path) == {
        ("harness/stray.py", "tool.invoked"): [2],
        ("harness/stray.py", "tool.invoked.pre"): [3],
        ("harness/stray.py", "request.received"): [5],
        ("harness/stray.py", "heartbeat.tick"): [6],
        ("harness/stray.py", "persistence.read.in"): [10],
        ("harness/stray.py", "shutdown.pre"): [11],
        ("harness/hooks/catalogue.py", "tool.invoked"): [1],
    }
