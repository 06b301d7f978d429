"""docs/architecture.md's table of where each operation runs says what the catalogue says.

The catalogue's ``local`` column is the one source; the table is for readers, and a row
moved from one kind of run to another without the table (or the other way round) fails
here, naming the operations that differ.
"""

from __future__ import annotations

import re
from pathlib import Path

import harness.hooks as hooks

DOC = Path(__file__).parents[3] / "docs" / "architecture.md"


def table_row(runs_as: str) -> set[str]:
    """The operations named in the second cell of the table row that starts with ``runs_as``."""
    for line in DOC.read_text().splitlines():
        if line.startswith(f"| {runs_as}"):
            named = set(re.findall(r"`([a-z_.]+)`", line.split("|")[2]))
            return named & {e.operation for e in hooks.entries()}
    raise AssertionError(f"docs/architecture.md has no table row '{runs_as}'")


def test_the_local_row_of_the_table_is_the_catalogues_local_column():
    assert table_row("local activity") == set(hooks.LOCAL_BY_DEFAULT)


def test_the_activity_row_names_every_other_operation_with_an_activity():
    others = {e.operation for e in hooks.entries() if e.activity and not e.local}
    assert table_row("activity on the task queue") == others


def test_the_operations_inside_another_activity_are_those_with_none():
    assert table_row("inside another activity") == {
        e.operation for e in hooks.entries() if e.activity is None
    }


def test_only_short_steps_are_local_never_a_model_call():
    """A local step holds the workflow task: a model call there would hold /task stop."""
    assert not {e.operation for e in hooks.entries() if e.local and e.calls_model}
    assert {"llm.invoked", "tool.invoked", "agent.invoked"}.isdisjoint(hooks.LOCAL_BY_DEFAULT)
