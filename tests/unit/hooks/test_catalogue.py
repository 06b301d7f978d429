from __future__ import annotations

import pytest

from harness.hooks import OPERATIONS, PHASES, POINTS, UnknownHookPointError, context_type
from harness.hooks.catalogue import check_operation, point, split_point

DESIGN_CATALOGUE = """
request.received, task.created, task.state_changed, task.complete, context.created,
llm.invoked, tool_calls.extracted, tool.invoked, system_one.invoked, plan.created,
step.started, step.finished, subtask.spawned, help.requested, help.decided,
channel.sent, channel.received, compaction.trigger, compaction.keep,
compaction.summarise, persistence.read, persistence.write, activity.failed,
activity.retried, heartbeat.tick, shutdown, skill.loaded, skill.unloaded,
agent.invoked, command.invoked
"""


def test_operations_are_the_design_catalogue_in_order():
    expected = tuple(name.strip() for name in DESIGN_CATALOGUE.replace("\n", " ").split(","))
    assert OPERATIONS == expected
    assert len(OPERATIONS) == 30


def test_phases_and_points():
    assert PHASES == ("pre", "in", "post")
    assert len(POINTS) == 90
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
    from typing import ClassVar

    from harness.hooks import HookContext, HookManager, context_type
    from harness.hooks.catalogue import Entry, entries, extend

    undo = extend(Entry("probe.ran", "probe"))
    try:

        class ProbeRanContext(HookContext):
            operation: ClassVar[str] = "probe.ran"

        assert entries()[-1].activity == "probe-ran-v1"
        assert split_point("probe.ran.in") == ("probe.ran", "in")
        assert context_type("probe.ran.pre") is ProbeRanContext
        assert HookManager().registrations("probe.ran.post") == ()
        with pytest.raises(ValueError, match="in the catalogue already"):
            extend(Entry("probe.ran", "probe"))
        with pytest.raises(TypeError, match="has a context class already"):

            class Twin(HookContext):
                operation: ClassVar[str] = "probe.ran"
    finally:
        undo()
    with pytest.raises(UnknownHookPointError):
        split_point("probe.ran.in")
    assert "probe.ran" not in OPERATIONS


def test_a_context_of_an_operation_not_in_the_catalogue_is_refused():
    from typing import ClassVar

    from harness.hooks import HookContext

    with pytest.raises(UnknownHookPointError):

        class Stray(HookContext):
            operation: ClassVar[str] = "stray.op"
