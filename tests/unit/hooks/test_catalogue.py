from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.hooks import OPERATIONS, PHASES, POINTS, UnknownHookPointError, context_type
from harness.hooks.catalogue import check_operation, point, split_point

DESIGN = Path(__file__).resolve().parents[3] / "docs" / "design.md"
_SECTION = re.compile(
    r"^## The operation catalogue \(exactly these (\d+)\)\n(.*?)\.\n", re.M | re.S
)


def test_operations_are_the_design_catalogue_in_order():
    """docs/design.md is the contract: a row added or moved there and here, or neither."""
    found = _SECTION.search(DESIGN.read_text())
    assert found, "docs/design.md has no '## The operation catalogue (exactly these N)' section"
    count, names = int(found[1]), tuple(n.strip() for n in found[2].replace("\n", " ").split(","))
    assert OPERATIONS == names, "docs/design.md's catalogue and the rows differ"
    assert count == len(OPERATIONS), "docs/design.md's heading counts the catalogue"


def test_phases_and_points():
    assert PHASES == ("pre", "in", "post")
    assert len(POINTS) == len(PHASES) * len(OPERATIONS)
    assert "tool.invoked.pre" in POINTS
    assert point("shutdown", "post") == "shutdown.post"


def test_split_point_handles_operations_with_dots_and_without():
    assert split_point("tool_calls.extracted.in") == ("tool_calls.extracted", "in")
    assert split_point("shutdown.pre") == ("shutdown", "pre")


@pytest.mark.parametrize("bad", ["tool.invoked", "tool.invoked.during", "tool.invokd.pre", ""])
def test_unknown_point_is_a_clear_error(bad):
    with pytest.raises(UnknownHookPointError) as info:
        split_point(bad)
    assert repr(bad) in str(info.value)
    assert "<operation>.<phase>" in str(info.value)


def test_unknown_point_suggests_the_close_one():
    with pytest.raises(UnknownHookPointError, match=r"did you mean .tool\.invoked\.pre."):
        split_point("tool.invokd.pre")


def test_unknown_operation_is_a_value_error_too():
    with pytest.raises(ValueError, match=r"unknown hook point .tools\.invoked."):
        check_operation("tools.invoked")


def test_each_row_names_the_family_module_of_its_context_and_derives_its_activity():
    from harness.hooks.catalogue import CATALOGUE, activity_name

    for entry in CATALOGUE:
        assert context_type(entry.operation).__module__ == f"harness.hooks.contexts.{entry.family}"
        assert context_type(entry.operation).operation == entry.operation
        # activity.failed and activity.retried too (issue 25): each its own activity type.
        if entry.operation not in ("heartbeat.tick", "shutdown"):
            assert entry.activity == activity_name(entry.operation)
    assert activity_name("tool_calls.extracted") == "tool-calls-extracted-v1"


def test_extend_adds_an_operation_until_undone():
    from harness.hooks import HookContext, HookManager, context_type
    from harness.hooks.catalogue import Entry, entries, extend

    undo = extend(Entry("probe.ran", "probe"))
    try:

        class ProbeRanContext(HookContext, operation="probe.ran"):
            pass

        assert entries()[-1].activity == "probe-ran-v1"
        assert split_point("probe.ran.in") == ("probe.ran", "in")
        assert context_type("probe.ran.pre") is ProbeRanContext
        assert ProbeRanContext.operation == "probe.ran"
        assert HookManager().registrations("probe.ran.post") == ()
        with pytest.raises(ValueError, match="in the catalogue already"):
            extend(Entry("probe.ran", "probe"))
        with pytest.raises(TypeError, match="has a context class already"):

            class Twin(HookContext, operation="probe.ran"):
                pass

    finally:
        undo()
    with pytest.raises(UnknownHookPointError):
        split_point("probe.ran.in")
    assert "probe.ran" not in OPERATIONS


def test_a_context_of_an_operation_not_in_the_catalogue_is_refused():
    from harness.hooks import HookContext

    with pytest.raises(UnknownHookPointError, match=r"did you mean .tool\.invoked."):

        class Stray(HookContext, operation="tool.invokd"):
            pass


def test_the_operation_as_a_class_attribute_is_refused_for_the_one_keyword_form():
    from typing import ClassVar

    from harness.hooks import HookContext

    with pytest.raises(TypeError, match="as a class keyword"):

        class Old(HookContext):
            operation: ClassVar[str] = "tool.invoked"


def test_a_context_in_another_familys_module_is_refused():
    from harness.hooks.contexts.base import register_context

    class Misplaced:
        operation = "tool.invoked"
        __module__ = "harness.hooks.contexts.llm"
        __qualname__ = "Misplaced"

    with pytest.raises(TypeError, match=r"belongs in harness/hooks/contexts/tool\.py"):
        register_context(Misplaced)  # type: ignore[arg-type]


def test_a_row_without_a_context_class_fails_the_check_run_at_import():
    from harness.hooks.catalogue import Entry, extend
    from harness.hooks.contexts.base import check_contexts

    check_contexts()  # the table as shipped: every row has its class
    undo = extend(Entry("probe.lonely", "probe"))
    try:
        with pytest.raises(TypeError, match=r"without a context class: probe\.lonely \(probe\)"):
            check_contexts()
        with pytest.raises(TypeError, match=r"probe\.lonely"):
            context_type("probe.lonely")
    finally:
        undo()


def test_each_per_operation_fact_is_a_column_of_its_row():
    from harness.hooks.catalogue import CATALOGUE, entry_of, points_at

    assert entry_of("llm.invoked").calls_model and not entry_of("tool.invoked").calls_model
    assert {e.operation for e in CATALOGUE if e.calls_model} == {
        "llm.invoked",
        "system_one.invoked",
        "compaction.summarise",
    }
    assert points_at("pre", lambda e: e.progress) == ("llm.invoked.pre", "tool.invoked.pre")
    assert points_at("pre", lambda e: e.policy) == ("tool.invoked.pre", "command.invoked.pre")
    assert entry_of("llm.invoked").unechoed == ("messages",)
    assert [e.operation for e in CATALOGUE if not e.body] == ["command.invoked"]
    assert {e.operation: e.attempts for e in CATALOGUE if e.attempts} == {"command.invoked": 1}
