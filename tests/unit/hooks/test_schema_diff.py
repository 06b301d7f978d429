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
