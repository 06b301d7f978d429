"""A call's arguments checked against the JSON schema its tool offered the model.

A model that breaks the schema (a key ``additionalProperties: false`` forbids, a
missing required one, a wrong type) is answered with what is wrong and the tool is not
run (issue 26): the tool's own checks were written for the shape it published. Only
checks; :mod:`harness.tools.registry` decides what a refusal becomes.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final, final

import pydantic_core
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # ships no types
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]  # ships no types

log = logging.getLogger(__name__)

MAX_PROBLEMS: Final = 5
"""Problems named in one answer; the model fixes the first few and calls again."""

MAX_PROBLEM_CHARS: Final = 200
"""Longest text per problem: a message quotes the offending value, which may be long."""


@final
class ArgumentsCheck:
    """The compiled schema of one tool, or nothing to check when the schema is unusable.

    Args:
        tool: the tool's name, for the log.
        schema: the ``parameters`` of the tool's spec; empty means "anything goes".
    """

    __slots__ = ("_validator",)

    def __init__(self, tool: str, schema: Mapping[str, Any]) -> None:
        self._validator: Any = None
        if not schema:
            return
        plain = pydantic_core.to_jsonable_python(schema)  # frozen tuples back to JSON arrays
        try:
            Draft202012Validator.check_schema(plain)
        except SchemaError as error:  # a tool server's schema we cannot read: run unchecked
            log.warning("tool %r offers an invalid schema, calls go unchecked: %s", tool, error)
            return
        self._validator = Draft202012Validator(plain)

    def problems(self, arguments: Mapping[str, Any]) -> str:
        """What is wrong with ``arguments`` (one line per problem), or "" when nothing is."""
        if self._validator is None:
            return ""
        plain = pydantic_core.to_jsonable_python(arguments)
        found = sorted(self._validator.iter_errors(plain), key=lambda e: list(e.absolute_path))
        lines = []
        for error in found[:MAX_PROBLEMS]:
            where = "/".join(str(part) for part in error.absolute_path) or "arguments"
            text = f"{where}: {error.message}"
            lines.append(
                text if len(text) <= MAX_PROBLEM_CHARS else text[: MAX_PROBLEM_CHARS - 3] + "..."
            )
        if len(found) > MAX_PROBLEMS:
            lines.append(f"... and {len(found) - MAX_PROBLEMS} more")
        return "\n".join(lines)
