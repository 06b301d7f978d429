"""``harness.temporal``'s package module holds names only and imports nothing of harness.

Temporal's sandbox imports it as the package of every workflow module, outside
``imports_passed_through``: an import of ``harness.hooks`` there would give the sandbox
its own copies of every context class, and a workflow's ``TaskRef`` would no longer be
the one its contexts validate (issue 12).
"""

from __future__ import annotations

import ast
from pathlib import Path

import harness.temporal


def test_the_package_module_imports_nothing_of_harness():
    tree = ast.parse(Path(harness.temporal.__file__).read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert [name for name in imported if name.split(".")[0] == "harness"] == []
