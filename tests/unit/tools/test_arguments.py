"""Arguments are checked against the schema the tool offered the model (issue 26)."""

from __future__ import annotations

from typing import Any

from harness.domain import ToolCall, ToolResult, ToolSpec
from harness.tools import CalculatorTool, ToolRegistry
from harness.tools.base import object_schema


class Counting:
    """A tool that counts its runs: a refused call must not run it."""

    requires_approval = False
    safe = True

    def __init__(self, parameters: dict[str, Any]) -> None:
        self.spec = ToolSpec(name="count", parameters=parameters)
        self.runs = 0

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        self.runs += 1
        return ToolResult(content="ran")


async def test_an_extra_key_where_the_schema_forbids_one_is_answered_and_not_run():
    tool = Counting(object_schema({"path": "string"}))
    result = await ToolRegistry([tool]).invoke(
        ToolCall(id="1", name="count", arguments={"path": "a", "mode": "rwx"})
    )
    assert result.is_error and tool.runs == 0
    assert "schema of tool 'count'" in result.content
    assert "'mode' was unexpected" in result.content


async def test_missing_and_mistyped_arguments_are_each_named():
    tool = Counting(object_schema({"path": "string", "size": "number"}))
    result = await ToolRegistry([tool]).invoke(
        ToolCall(id="1", name="count", arguments={"size": "big"})
    )
    assert result.is_error and tool.runs == 0
    assert "'path' is a required property" in result.content
    assert "size: 'big' is not of type 'number'" in result.content


async def test_arrays_in_frozen_arguments_validate_as_arrays():
    schema = {"type": "object", "properties": {"paths": {"type": "array"}}}
    tool = Counting(schema)
    call = ToolCall(id="1", name="count", arguments={"paths": ["a", "b"]})
    assert isinstance(call.arguments["paths"], tuple)  # contexts freeze lists
    assert (await ToolRegistry([tool]).invoke(call)).content == "ran"


async def test_a_tool_whose_schema_is_invalid_runs_unchecked(caplog):
    tool = Counting({"type": "no-such-type"})
    registry = ToolRegistry([tool])
    assert "invalid schema" in caplog.text
    assert (
        await registry.invoke(ToolCall(id="1", name="count", arguments={"x": 1}))
    ).content == "ran"


async def test_a_call_that_fits_the_schema_runs():
    result = await ToolRegistry([CalculatorTool()]).invoke(
        ToolCall(id="1", name="calculator", arguments={"expression": "2 + 3"})
    )
    assert not result.is_error and result.content == "5"
