"""Issue 27: a run with local steps decides every ``workflow.patched`` id at its start
(``harness.temporal.workflow.patches``); an id the list misses would be decided where it is
first called, which a local step may move to another workflow task on replay.

The scan reads every call of ``.patched(...)`` in ``harness/``: the workflow's own
``workflow.patched`` and the agent loop's (``self.patched``, its port's, issue 25). An id is
passed as an UPPER-case constant, which the scan resolves; a string written at the call (a
literal or an f-string) is no constant PATCHES can list, and fails naming it. A lower-case
name is a parameter handing on an id its caller chose (``said_since``, the port's
``patch_id``), checked where that caller's constant is passed.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import harness
from harness.temporal.workflow.local_steps import LOCAL_STEPS
from harness.temporal.workflow.patches import PATCHES

ROOT = Path(harness.__file__).parent


def calls(root: Path = ROOT) -> list[tuple[str, int, ast.expr]]:
    """``(file, line, first argument)`` of each ``<x>.patched(...)`` call under ``root``."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "patched"
                and node.args
            ):
                found.append((str(path.relative_to(root.parent)), node.lineno, node.args[0]))
    return found


def ids_called(root: Path = ROOT) -> tuple[dict[str, str], dict[str, str]]:
    """Each constant passed to ``patched``: its value and where; and each id written at a call."""
    constants: dict[str, str] = {}
    written: dict[str, str] = {}
    for file, line, arg in calls(root):
        where = f"{file}:{line}"
        if isinstance(arg, ast.Constant | ast.JoinedStr):
            written[ast.unparse(arg)] = where
        elif isinstance(arg, ast.Name) and arg.id.isupper():
            module = importlib.import_module(file.removesuffix(".py").replace("/", "."))
            constants[getattr(module, arg.id)] = where
    return constants, written


def test_every_patch_id_the_workflows_call_is_settled_at_the_start():
    called, written = ids_called()
    assert len(called) >= 13  # the scan sees the calls (a broken scan finds none)
    assert written == {}, "a patch id is a constant listed in patches.py PATCHES, not a string"
    missing = {pid: where for pid, where in called.items() if pid not in {*PATCHES, LOCAL_STEPS}}
    assert missing == {}, f"add these to harness/temporal/workflow/patches.py PATCHES: {missing}"
    assert len(set(PATCHES)) == len(PATCHES) and LOCAL_STEPS not in PATCHES


def test_the_scan_names_an_id_written_at_the_call(tmp_path):
    package = tmp_path / "harness"
    package.mkdir()
    (package / "stray.py").write_text(
        'if workflow.patched("new-step-v1"):\n    pass\n'
        'if self.patched(f"loop-{n}"):\n    pass\n'
        "if workflow.patched(said_since):\n    pass\n"
    )
    _, written = ids_called(package)
    assert written == {"'new-step-v1'": "harness/stray.py:1", "f'loop-{n}'": "harness/stray.py:3"}
