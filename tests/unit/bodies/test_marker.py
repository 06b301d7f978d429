"""The default-body marker: bodies are found by @body; each mismatch raises where it is made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.bodies import Bodies, body
from harness.bodies.marker import BODIES, check_bodies
from harness.hooks import OPERATIONS, HookContext, entry_of, forget_operation
from harness.hooks.contexts import CommandInvokedContext, ToolInvokedContext


def test_every_row_that_says_body_has_exactly_its_marked_body():
    check_bodies()  # what importing harness.bodies ran
    rows = [entry_of(op) for op in OPERATIONS]
    assert set(BODIES) == {e.operation for e in rows if e.body}
    for entry in rows:
        if entry.body:
            cls, method = BODIES[entry.operation]
            assert cls.__module__ == f"harness.bodies.{entry.family}"
            assert getattr(cls, method).__default_body_of__ == entry.operation


def test_a_second_body_for_one_operation_is_refused_at_the_class_statement():
    with pytest.raises(TypeError, match=r"tool\.invoked has a default body already: ToolBodies"):

        class Twin(Bodies):
            @body(ToolInvokedContext)
            async def again(self, ctx: ToolInvokedContext) -> ToolInvokedContext:
                return ctx


def test_a_body_for_a_row_that_says_it_has_none_is_refused():
    with pytest.raises(TypeError, match=r"no default body \(body=False\)"):

        class Commands(Bodies):
            @body(CommandInvokedContext)
            async def run(self, ctx: CommandInvokedContext) -> CommandInvokedContext:
                return ctx


def test_a_body_outside_its_family_module_is_refused():
    class ProbeHomelessContext(HookContext, operation="probe.homeless", family="probe"):
        pass

    try:
        namespace = {"__module__": "harness.bodies.tool"}

        async def homeless(self, ctx):
            return ctx

        namespace["homeless"] = body(ProbeHomelessContext)(homeless)
        with pytest.raises(TypeError, match=r"belongs in harness/bodies/probe\.py"):
            type("Stray", (Bodies,), namespace)
    finally:
        forget_operation("probe.homeless")


def test_the_marker_needs_an_operations_context():
    with pytest.raises(TypeError, match="is not the context of an operation"):
        body(HookContext)


def test_a_row_without_its_body_fails_the_check_and_undo_forgets_a_body():
    class ProbePendingContext(HookContext, operation="probe.pending", family="probe"):
        pass

    try:
        with pytest.raises(TypeError, match=r"without a default body: probe\.pending \(probe\)"):
            check_bodies()

        class ProbeBodies(Bodies):
            @body(ProbePendingContext)
            async def pending(self, ctx: ProbePendingContext) -> ProbePendingContext:
                return ctx

        check_bodies()
        assert BODIES["probe.pending"] == (ProbeBodies, "pending")
    finally:
        forget_operation("probe.pending")
    assert "probe.pending" not in BODIES
    check_bodies()


def test_a_declared_row_without_its_body_fails_the_import_of_the_bodies(tmp_path):
    """A context class that says ``body`` (the default) and no marked body: import fails."""
    (tmp_path / "probe_plugin.py").write_text(
        "from harness.hooks import HookContext\n\n\n"
        'class ProbeLonelyContext(HookContext, operation="probe.lonely"):\n'
        "    pass\n"
    )
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)])}
    run = subprocess.run(
        [sys.executable, "-c", "import probe_plugin, harness.bodies"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert run.returncode == 1
    assert (
        "TypeError: catalogue rows without a default body: probe.lonely (probe_plugin)"
        in run.stderr
    )
