"""Built-in tools and the registry: results, refusals the model reads, approval flags."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from harness.domain import ToolCall
from harness.tools import (
    CalculatorTool,
    ClockTool,
    EchoTool,
    ToolRegistry,
    ToolUnavailable,
    builtin_tools,
)


class FixedClock:
    def now(self) -> datetime:
        return datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)

    def monotonic(self) -> float:
        return 0.0


@pytest.fixture
def store(sqlite_store):
    return sqlite_store


@pytest.fixture
def registry(store) -> ToolRegistry:
    return ToolRegistry(builtin_tools(clock=FixedClock(), store=store))


def call(tool, **arguments) -> ToolCall:
    return ToolCall(id="c", name=tool, arguments=arguments)


async def test_echo_and_clock(registry):
    assert (await registry.invoke(call("echo", text="hi"))).content == "hi"
    assert (await registry.invoke(call("clock"))).content == "2025-01-02T03:04:05+00:00"


@pytest.mark.parametrize(
    ("expression", "value"),
    [("6*7", "42"), ("(2 + 3) * 7 / 2", "17.5"), ("-2**3", "-8"), ("7 // 2 + 7 % 2", "4")],
)
async def test_calculator(expression, value):
    assert (await CalculatorTool().call({"expression": expression})).content == value


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("__import__('os').system('true')", "not allowed"),
        ("9**9**9", "exponent"),
        ("1/0", "division by zero"),
        ("2 +", "not an expression"),
        ("True + 1", "not allowed"),
    ],
    ids=["code", "huge", "zero", "syntax", "bool"],
)
async def test_calculator_refuses_what_is_not_bounded_arithmetic(registry, expression, says):
    result = await registry.invoke(call("calculator", expression=expression))
    assert result.is_error
    assert says in result.content


async def test_wrong_arguments_and_unknown_tools_are_error_results(registry):
    missing = await registry.invoke(call("echo"))
    assert missing.is_error and "'text' is a required property" in missing.content
    unknown = await registry.invoke(call("rm"))
    assert unknown.is_error and "unknown tool 'rm'" in unknown.content and "echo" in unknown.content


async def test_artefacts_are_per_task_and_versioned(registry, store):
    first = await registry.invoke(
        call("write_artefact", name="notes.md", content="v1"), task_id="T1"
    )
    second = await registry.invoke(
        call("write_artefact", name="notes.md", content="v2"), task_id="T1"
    )
    assert (first.content, second.content) == (
        "stored notes.md version 1",
        "stored notes.md version 2",
    )
    assert (
        await registry.invoke(call("read_artefact", name="notes.md"), task_id="T1")
    ).content == "v2"
    other = await registry.invoke(call("read_artefact", name="notes.md"), task_id="T2")
    assert other.is_error and "no artefact" in other.content
    assert (await store.read("task/T1/artefacts/notes.md")).version == 2


async def test_artefact_names_cannot_escape_the_task(registry):
    result = await registry.invoke(call("read_artefact", name="../T2/artefacts/x"), task_id="T1")
    assert result.is_error and "artefact name" in result.content


def test_only_writing_needs_approval(registry):
    needing = {n for n in registry.names if registry.get(n).requires_approval}
    assert needing == {"write_artefact"}


def test_registry_refuses_duplicates_and_filters_specs(registry):
    with pytest.raises(ValueError, match="already registered"):
        registry.add(EchoTool())
    assert [s.name for s in registry.specs(["calculator", "nope", "echo"])] == [
        "calculator",
        "echo",
    ]
    assert len(registry.specs()) == 5
    assert isinstance(registry.get("clock"), ClockTool)


async def test_backend_failures_propagate_for_a_retry():
    class Down:
        spec = EchoTool.spec.model_copy(update={"name": "down"})
        requires_approval = False

        async def call(self, arguments, *, task_id=""):
            raise ToolUnavailable(tool="down", detail="backend gone")

    with pytest.raises(ToolUnavailable, match="backend gone"):
        await ToolRegistry([Down()]).invoke(call("down", text="x"))
