from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.hooks import OPERATIONS, PHASES, POINTS, UnknownHookPointError, catalogue, context_type
from harness.hooks.catalogue import check_operation, point, split_point

DESIGN = Path(__file__).resolve().parents[3] / "docs" / "design.md"
_SECTION = re.compile(
    r"^## The operation catalogue \(exactly these (\d+)\)\n(.*?)\.\n", re.M | re.S
)


def test_operations_are_the_design_catalogue():
    """docs/design.md is the contract: a row added there and here, or neither (in any order)."""
    found = _SECTION.search(DESIGN.read_text())
    assert found, "docs/design.md has no '## The operation catalogue (exactly these N)' section"
    count, names = int(found[1]), [n.strip() for n in found[2].replace("\n", " ").split(",")]
    assert set(OPERATIONS) == set(names), (
        f"docs/design.md's catalogue (the contract) and the context classes differ: add "
        f"{sorted(set(OPERATIONS) - set(names))} to its list, drop "
        f"{sorted(set(names) - set(OPERATIONS))} from it, and count them in its heading"
    )
    assert len(names) == len(set(names)) == count == len(OPERATIONS), (
        "docs/design.md's heading counts the catalogue"
    )


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
    from harness.hooks.catalogue import activity_name, entry_of

    for operation in OPERATIONS:
        entry = entry_of(operation)
        assert context_type(operation).__module__ == f"harness.hooks.contexts.{entry.family}"
        assert context_type(operation).operation == operation
        # activity.failed and activity.retried too (issue 25): each its own activity type.
        if operation not in ("heartbeat.tick", "shutdown"):
            assert entry.activity == activity_name(operation)
    assert activity_name("tool_calls.extracted") == "tool-calls-extracted-v1"


def test_the_builtin_catalogue_is_in_load_order_each_modules_classes_as_defined():
    """OPERATIONS: the order the contexts' modules loaded in, each one's classes in order."""
    import inspect

    modules = [context_type(op).__module__ for op in OPERATIONS]
    assert all(m.startswith("harness.hooks.contexts.") for m in modules)
    for module in set(modules):
        ops = [op for op in OPERATIONS if context_type(op).__module__ == module]
        lines = [inspect.getsourcelines(context_type(op))[1] for op in ops]
        assert lines == sorted(lines), f"{module}'s operations are not in definition order"
    assert OPERATIONS[:2] == ("activity.failed", "activity.retried")


def test_each_per_operation_fact_is_a_column_of_its_row():
    from harness.hooks.catalogue import entry_of, points_at

    rows = [entry_of(op) for op in OPERATIONS]
    assert entry_of("llm.invoked").calls_model and not entry_of("tool.invoked").calls_model
    assert {e.operation for e in rows if e.calls_model} == {
        "llm.invoked",
        "system_one.invoked",
        "compaction.summarise",
        "plan.created",
    }
    assert set(points_at("pre", lambda e: e.progress)) == {"llm.invoked.pre", "tool.invoked.pre"}
    assert set(points_at("pre", lambda e: e.policy)) == {"tool.invoked.pre", "command.invoked.pre"}
    assert entry_of("llm.invoked").unechoed == ("messages",)
    assert [e.operation for e in rows if not e.body] == ["command.invoked"]
    assert {e.operation: e.attempts for e in rows if e.attempts} == {"command.invoked": 1}


def test_run_locally_sets_the_local_column_and_its_undo_restores_the_rows():
    before = catalogue.entry_of("channel.sent")
    undo = catalogue.run_locally(["channel.sent"])
    try:
        assert catalogue.entry_of("channel.sent").local is True
        assert catalogue.entry_of("channel.sent").activity == before.activity
    finally:
        undo()
    assert catalogue.entry_of("channel.sent") == before


def test_run_locally_refuses_an_unknown_operation_and_changes_nothing():
    rows = catalogue.entries()
    with pytest.raises(UnknownHookPointError, match=r"channel\.snet"):
        catalogue.run_locally(["channel.sent", "channel.snet"])
    assert catalogue.entries() == rows
