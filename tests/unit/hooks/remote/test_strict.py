"""Strict reading of a peer's reply (issue 28): JSON mode, nothing coerced, the field named."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from harness.hooks.remote.strict import ROOT, ReplyError, one_of, read_strict


class Shape(BaseModel):
    count: int = 0
    ratio: float = 0.0
    flag: bool = False
    items: tuple[int, ...] = ()
    tags: frozenset[str] = frozenset()
    at: datetime | None = None


SHAPE = TypeAdapter(Shape)


def read(data: object) -> Shape:
    return read_strict(SHAPE, json.dumps(data), title="Shape", tagged=False)


def test_json_arrays_fill_tuples_and_sets_and_iso_strings_datetimes():
    """Why JSON mode: strict validation of the decoded objects refuses all three."""
    data = {"items": [1, 2], "tags": ["a"], "at": "2026-01-02T03:04:05Z"}
    got = read(data)
    assert got.items == (1, 2) and got.tags == frozenset({"a"})
    assert got.at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    with pytest.raises(ValidationError) as python_mode:
        Shape.model_validate(data, strict=True)
    assert {e["loc"][0] for e in python_mode.value.errors()} == {"items", "tags", "at"}


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"count": "0"}, "count"),
        ({"flag": "false"}, "flag"),
        ({"flag": 0}, "flag"),
        ({"count": True}, "count"),
        ({"count": 1.5}, "count"),
        ({"ratio": "0.5"}, "ratio"),
        ({"items": [1, "2"]}, "items.1"),
    ],
    ids=[
        "int-string",
        "bool-string",
        "bool-int",
        "int-bool",
        "int-fraction",
        "float-string",
        "item",
    ],
)
def test_nothing_is_coerced_and_the_field_is_named(data, named):
    with pytest.raises(ReplyError) as refused:
        read(data)
    assert refused.value.paths == (named,)
    assert str(refused.value).startswith(f"reply does not conform (Shape): {named}: ")
    assert "0.5" not in str(refused.value)  # the peer's values stay out of the message


def test_a_number_with_a_zero_fraction_is_an_integer_as_json_schema_says():
    got = read({"count": 2.0, "ratio": 1, "items": [3.0]})
    assert (got.count, got.ratio, got.items) == (2, 1.0, (3,))
    assert type(got.count) is int and type(got.ratio) is float


def test_a_body_that_is_not_json_is_left_to_the_error_boundary_as_such():
    with pytest.raises(ValidationError) as info:
        read_strict(SHAPE, b'{"count": ', title="Shape", tagged=False)
    assert info.value.errors()[0]["type"] == "json_invalid"


class Answer(BaseModel):
    value: int | None
    problem: None = None


class Problem(BaseModel):
    problem: str


EITHER = TypeAdapter(one_of("value", Answer, "problem", Problem))


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"value": 1, "problem": "x"}, ROOT),
        ({}, ROOT),
        ({"value": "1"}, "value"),
        ({"problem": 7}, "problem"),
        ([], ROOT),
    ],
    ids=["both", "neither", "answer-field", "other-field", "not-an-object"],
)
def test_one_of_two_members_names_the_field_without_our_tag(data, named):
    with pytest.raises(ReplyError) as refused:
        read_strict(EITHER, json.dumps(data), title="Either", tagged=True)
    assert refused.value.paths == (named,)


def test_a_null_beside_the_answer_is_absent_and_problems_inside_a_reply_say_where():
    got = read_strict(EITHER, '{"value": null, "problem": null}', title="Either", tagged=True)
    assert isinstance(got, Answer) and got.value is None
    inner = ReplyError(title="abort", problems=[("abort.refusal", "no"), (ROOT, "odd")])
    assert inner.within("error", "data").paths == ("error.data.abort.refusal", "error.data")
