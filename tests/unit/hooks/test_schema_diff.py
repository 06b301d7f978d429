"""The schema classifier (issue 15, "a breaking change needs a new version"), on small
hand-made schema pairs."""

from __future__ import annotations

import pytest

from harness.hooks.schema_diff import BREAKING, REGENERATE, classify


def obj(properties, required=(), **extra):
    return {"type": "object", "properties": properties, "required": list(required), **extra}


S = {"type": "string"}
BASE = obj({"name": S, "n": {"type": "integer"}, "mode": {"enum": ["a", "b"]}}, ["name"])


@pytest.mark.parametrize(
    ("new", "kind", "says"),
    [
        (BASE, "same", ""),
        (obj({**BASE["properties"], "extra": S}, ["name"]), "additive", "new optional property"),
        (
            obj({**BASE["properties"], "extra": S}, ["name", "extra"]),
            "breaking",
            "new required property",
        ),
        (
            obj({"name": S, "mode": BASE["properties"]["mode"]}, ["name"]),
            "breaking",
            "property removed",
        ),
        (
            obj({**BASE["properties"], "n": S}, ["name"]),
            "breaking",
            "type ['integer'] -> ['string']",
        ),
        (
            obj({**BASE["properties"], "n": {"type": ["integer", "null"]}}, ["name"]),
            "additive",
            "type ['integer'] -> ['integer', 'null']",
        ),
        (
            obj({**BASE["properties"], "mode": {"enum": ["a"]}}, ["name"]),
            "breaking",
            "enum narrowed",
        ),
        (
            obj({**BASE["properties"], "mode": {"enum": ["a", "b", "c"]}}, ["name"]),
            "additive",
            "enum widened",
        ),
        (obj(BASE["properties"], ["name", "n"]), "breaking", "property became required"),
        ({**BASE, "description": "now documented"}, "additive", "changed description"),
    ],
    ids=[
        "same",
        "optional-added",
        "required-added",
        "removed",
        "type-changed",
        "type-widened",
        "enum-narrowed",
        "enum-widened",
        "became-required",
        "description",
    ],
)
def test_each_kind_of_change_is_classified(new, kind, says):
    diff = classify(BASE, new)
    assert diff.kind == kind
    assert says in diff.advice()
    if kind == "breaking":
        assert diff.advice().endswith(BREAKING)
    elif kind == "additive":
        assert diff.advice().endswith(REGENERATE)
    else:
        assert diff.advice() == ""


def test_changes_behind_refs_and_in_arrays_are_found_with_their_path():
    def doc(item):
        return {
            "type": "object",
            "properties": {"calls": {"type": "array", "items": {"$ref": "#/$defs/Call"}}},
            "$defs": {"Call": item},
        }

    old = doc(obj({"id": S, "name": S}, ["id"]))
    diff = classify(old, doc(obj({"id": S}, ["id"])))
    assert diff.kind == "breaking"
    assert [(c.path, c.what) for c in diff.changes] == [("$.calls[].name", "property removed")]
    assert classify(old, doc(obj({"id": S, "name": S, "x": S}, ["id"]))).kind == "additive"


def test_a_breaking_and_an_additive_change_together_are_breaking():
    new = obj({"name": S, "n": {"type": "integer"}, "mode": {"enum": ["a"]}, "x": S}, ["name"])
    diff = classify(BASE, new)
    assert diff.kind == "breaking" and len(diff.changes) == 2
    assert "additive: $.x: new optional property" in diff.advice()


def test_an_object_split_into_a_tagged_union_is_compared_option_by_option():
    """Issue 25's typed effects: each option is held to the old object, its tag aside, and
    the tag's values across the options to the old enum."""
    flat = obj({"kind": {"enum": ["a", "b"]}, "value": S}, ["kind"])
    option_a = obj({"kind": {"const": "a"}, "value": S}, ["kind"], title="A")
    option_b = obj({"kind": {"const": "b"}, "value": S, "n": S}, ["kind"], title="B")
    same = classify(flat, {"oneOf": [option_a, option_b]})
    assert same.kind == "additive"
    assert [c.what for c in same.changes] == [
        "one object -> 2 alternatives told apart by kind",
        "new optional property",
    ]
    assert same.changes[1].path == "$<B>.n"
    renamed = obj({"kind": {"const": "b"}, "level": S}, ["kind", "level"], title="B")
    diff = classify(flat, {"oneOf": [option_a, renamed]})
    assert diff.kind == "breaking" and diff.advice().endswith(BREAKING)
    assert ("$<B>.value", "property removed") in [(c.path, c.what) for c in diff.changes]
    assert ("$<B>.level", "new required property") in [(c.path, c.what) for c in diff.changes]
    lost = classify(flat, {"oneOf": [option_a]})
    assert [(c.path, c.breaking) for c in lost.changes if "narrowed" in c.what] == [
        ("$.kind", True)
    ]


def test_a_nullable_object_made_required_is_compared_with_its_object():
    old = obj({"spec": {"anyOf": [obj({"title": S}, ["title"]), {"type": "null"}]}})
    new = obj({"spec": obj({"title": S, "more": S}, ["title"])})
    diff = classify(old, new)
    assert [(c.path, c.what, c.breaking) for c in diff.changes] == [
        ("$.spec", "2 alternatives -> only the object", True),
        ("$.spec.more", "new optional property", False),
    ]
