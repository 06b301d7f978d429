"""The ``calculator`` tool: arithmetic on numbers, evaluated over a whitelisted syntax tree.

Never ``eval``: only number literals, ``+ - * / // % **``, unary signs and
parentheses are accepted, and exponents and results are bounded, so a model cannot
run code or stall the worker with ``9**9**9``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any, Final, final

from harness.domain import ToolResult, ToolSpec
from harness.tools.base import object_schema, text_argument
from harness.tools.errors import ToolError

_BINARY: Final[dict[type[ast.operator], Callable[[Any, Any], Any]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: Final[dict[type[ast.unaryop], Callable[[Any], Any]]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
MAX_EXPONENT: Final = 100
MAX_MAGNITUDE: Final = 10**100
MAX_LENGTH: Final = 500


@final
class CalculatorTool:
    """Evaluates ``expression`` (e.g. ``"(2 + 3) * 7 / 2"``) and returns the number as text."""

    requires_approval = False
    safe = True
    spec = ToolSpec(
        name="calculator",
        description="Evaluate an arithmetic expression: numbers, + - * / // % ** and parentheses.",
        parameters=object_schema({"expression": "string"}),
    )

    async def call(self, arguments: dict[str, Any], *, task_id: str = "") -> ToolResult:
        """Evaluate the expression.

        Raises:
            ToolError: not arithmetic, too long, too large, or division by zero.
        """
        expression = text_argument("calculator", arguments, "expression")
        if len(expression) > MAX_LENGTH:
            raise ToolError(tool="calculator", detail=f"expression over {MAX_LENGTH} characters")
        try:
            tree = ast.parse(expression, mode="eval")
            value = _evaluate(tree.body)
        except SyntaxError as error:
            raise ToolError(tool="calculator", detail=f"not an expression: {error.msg}") from error
        except ZeroDivisionError as error:
            raise ToolError(tool="calculator", detail="division by zero") from error
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            value = int(value)
        return ToolResult(content=str(value))


def _evaluate(node: ast.expr) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value  # type: ignore[return-value]  # bool excluded: type(), not isinstance()
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ToolError(tool="calculator", detail=f"exponent over {MAX_EXPONENT}")
        return _bounded(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _bounded(_UNARY[type(node.op)](_evaluate(node.operand)))
    raise ToolError(tool="calculator", detail=f"{type(node).__name__} is not allowed")


def _bounded(value: Any) -> int | float:  # noqa: ANN401  # operator results are Any
    if isinstance(value, complex) or abs(value) > MAX_MAGNITUDE:
        raise ToolError(tool="calculator", detail="result out of range")
    return value  # type: ignore[no-any-return]  # int or float by construction
