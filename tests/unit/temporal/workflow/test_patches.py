"""Issue 27: a run with local steps decides every ``workflow.patched`` id at its start
(``harness.temporal.workflow.patches``); an id the list misses would be decided where it is
first called, which a local step may move to another workflow task on replay."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import harness.temporal.workflow as package
from harness.temporal.workflow.patches import PATCHES
from harness.temporal.workflow.retries import LOCAL_STEPS


def ids_called() -> dict[str, str]:
    """Each constant passed to ``workflow.patched`` in the workflow package: its value, and
    where it is called."""
    found: dict[str, str] = {}
    for path in sorted(Path(package.__file__).parent.glob("*.py")):
        module = importlib.import_module(f"{package.__name__}.{path.stem}")
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "patched"
                and node.args
                and isinstance(node.args[0], ast.Name)
                and node.args[0].id.isupper()
            ):
                found[getattr(module, node.args[0].id)] = f"{path.name}:{node.lineno}"
    return found


def test_every_patch_id_the_workflows_call_is_settled_at_the_start():
    called = ids_called()
    assert len(called) >= 13  # the scan sees the calls (a broken scan finds none)
    missing = {pid: where for pid, where in called.items() if pid not in {*PATCHES, LOCAL_STEPS}}
    assert missing == {}, f"add these to harness/temporal/workflow/patches.py PATCHES: {missing}"
    assert len(set(PATCHES)) == len(PATCHES) and LOCAL_STEPS not in PATCHES
