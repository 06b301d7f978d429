"""The context class is the operation's catalogue row: its class keywords are the columns.

Declaring the class records the row (and the class); each mistake in a declaration fails
at the class statement, with a message that says what to write instead.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from typing import ClassVar

import pytest

from harness.hooks import (
    OPERATIONS,
    HookContext,
    HookManager,
    UnknownHookPointError,
    context_type,
    entry_of,
    forget_operation,
)
from harness.hooks.catalogue import COLUMNS, entries, split_point


@pytest.fixture
def forget() -> Iterator[list[str]]:
    """Operations a test declares; each is forgotten afterwards, declared or not."""
    declared: list[str] = []
    yield declared
    for operation in declared:
        forget_operation(operation)


def test_declaring_a_context_class_records_its_row_until_forgotten(forget):
    forget.append("probe.ran")

    class ProbeRanContext(HookContext, operation="probe.ran", calls_model=True, attempts=2):
        lines: tuple[str, ...] = ()

    row = entry_of("probe.ran")
    assert entries()[-1] is row
    assert (row.family, row.activity) == ("test_context_rows", "probe-ran-v1")  # module's name
    assert (row.calls_model, row.attempts, row.body, row.progress) == (True, 2, True, ())
    assert context_type("probe.ran.pre") is ProbeRanContext
    assert ProbeRanContext.operation == "probe.ran"
    assert split_point("probe.ran.in") == ("probe.ran", "in")
    assert HookManager().registrations("probe.ran.post") == ()
    assert "probe.ran" not in OPERATIONS  # the built-in catalogue stays what the package holds
    forget_operation("probe.ran")
    with pytest.raises(UnknownHookPointError):
        split_point("probe.ran.in")
    with pytest.raises(UnknownHookPointError):
        context_type("probe.ran")


def test_a_family_keyword_names_a_plugins_family(forget):
    forget.append("probe.filed")

    class ProbeFiledContext(HookContext, operation="probe.filed", family="probe"):
        pass

    assert entry_of("probe.filed").family == "probe"


def test_a_misspelt_column_is_refused_with_the_column_it_resembles():
    with pytest.raises(
        TypeError, match=r"unknown catalogue column 'calls_modle' \(did you mean 'calls_model'\?\)"
    ):

        class Typo(HookContext, operation="probe.typo", calls_modle=True):
            pass

    with pytest.raises(
        TypeError, match=r"unknown catalogue column 'colour'; the columns are operation, family"
    ):

        class Unknown(HookContext, operation="probe.unknown", colour="red"):
            pass

    assert "probe.typo" not in {e.operation for e in entries()}
    assert set(COLUMNS) == {
        "family",
        "activity",
        "calls_model",
        "local",
        "progress",
        "unechoed",
        "policy",
        "attempts",
        "body",
    }


@pytest.mark.parametrize(
    ("columns", "said"),
    [
        ({"progress": "post"}, r"progress='post' is not a tuple of phases"),
        ({"policy": ("during",)}, r"policy=\('during',\) is not a tuple of phases"),
        ({"attempts": 0}, r"attempts=0 is not None or a number from 1"),
        ({"calls_model": "yes"}, r"calls_model='yes' is not True or False"),
        ({"unechoed": "lines"}, r"unechoed='lines' is not a tuple of field names"),
    ],
)
def test_a_column_of_the_wrong_shape_is_refused(columns, said):
    with pytest.raises(TypeError, match=r"the row of 'probe.shaped': " + said):

        class Shaped(HookContext, operation="probe.shaped", **columns):
            lines: tuple[str, ...] = ()

    assert "probe.shaped" not in {e.operation for e in entries()}


def test_a_misnamed_operation_is_refused():
    with pytest.raises(
        TypeError, match=r"operation='Probe Ran' is not lower-case words joined by dots"
    ):

        class Spaced(HookContext, operation="Probe Ran"):
            pass


def test_a_second_class_for_an_operation_is_refused():
    with pytest.raises(
        TypeError, match=r"tool\.invoked has a context class already: ToolInvokedContext"
    ):

        class Twin(HookContext, operation="tool.invoked"):
            pass

    assert context_type("tool.invoked").__name__ == "ToolInvokedContext"


def test_an_unechoed_column_naming_no_field_is_refused():
    with pytest.raises(TypeError, match=r"probe.echo's unechoed names no field: lnies"):

        class Echo(HookContext, operation="probe.echo", unechoed=("lnies",)):
            lines: tuple[str, ...] = ()

    assert "probe.echo" not in {e.operation for e in entries()}  # neither row nor class


def test_columns_without_an_operation_are_refused():
    with pytest.raises(TypeError, match=r"a row's columns need its operation="):

        class Headless(HookContext, calls_model=True):
            pass


def test_the_operation_as_a_class_attribute_is_refused_for_the_one_keyword_form():
    with pytest.raises(TypeError, match="as a class keyword"):

        class Old(HookContext):
            operation: ClassVar[str] = "tool.invoked"


def test_a_context_in_another_familys_module_is_refused():
    with pytest.raises(TypeError, match=r"belongs in harness/hooks/contexts/tool\.py"):

        class Misplaced(HookContext, operation="probe.misplaced", family="tool"):
            __module__ = "harness.hooks.contexts.llm"

    assert "probe.misplaced" not in {e.operation for e in entries()}


def test_a_subclass_of_a_context_is_not_another_operation():
    from harness.hooks.contexts import ToolInvokedContext

    class Narrower(ToolInvokedContext):
        pass

    assert Narrower.operation == "tool.invoked"
    assert context_type("tool.invoked") is ToolInvokedContext


def test_a_builtin_operation_is_never_forgotten():
    with pytest.raises(ValueError, match=r"tool\.invoked is a built-in operation"):
        forget_operation("tool.invoked")
    assert context_type("tool.invoked").__name__ == "ToolInvokedContext"


def test_the_builtin_catalogue_is_not_read_before_every_context_module_loaded(monkeypatch):
    """A fresh copy of the registry, as a module that reads it too early would see it."""
    from harness.hooks import catalogue

    spec = importlib.util.spec_from_file_location("early_catalogue", catalogue.__file__)
    assert spec and spec.loader
    early = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "early_catalogue", early)  # its dataclass looks itself up
    spec.loader.exec_module(early)
    with pytest.raises(ImportError, match="read before every context module has loaded"):
        early.POINTS  # noqa: B018  # the read is the test
    early.seal()
    assert early.OPERATIONS == early.POINTS == ()
