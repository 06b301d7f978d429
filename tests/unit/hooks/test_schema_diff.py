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


# --- what narrows a reply envelope (issue 28): the new schema must accept all the old did ---


N = {"type": "number"}


@pytest.mark.parametrize(
    ("old", "new", "says", "breaking"),
    [
        (obj({"a": S}), obj({"a": S}, additionalProperties=False), "no longer allowed", True),
        (
            obj({"a": S}, additionalProperties=False),
            obj({"a": S}),
            "other properties allowed",
            False,
        ),
        (
            obj({"t": {**N, "maximum": 10}}),
            obj({"t": {**N, "maximum": 5}}),
            "maximum 10 -> 5",
            True,
        ),
        (
            obj({"t": {**N, "maximum": 5}}),
            obj({"t": {**N, "maximum": 10}}),
            "maximum 5 -> 10",
            False,
        ),
        (obj({"t": N}), obj({"t": {**N, "minimum": 0}}), "minimum None -> 0", True),
        (obj({"t": {**N, "minimum": 0}}), obj({"t": N}), "minimum 0 -> None", False),
        (obj({"s": S}), obj({"s": {**S, "maxLength": 8}}), "maxLength None -> 8", True),
        (obj({"s": S}), obj({"s": {**S, "pattern": "^a"}}), "pattern added", True),
        (obj({"s": {**S, "pattern": "^a"}}), obj({"s": S}), "pattern removed", False),
        (obj({"c": N}), {**obj({"c": N}), "if": {"required": ["c"]}}, "if added", True),
        ({**obj({"c": N}), "not": {"required": ["c"]}}, obj({"c": N}), "not removed", False),
        (
            obj({"e": {"anyOf": [obj({"code": N}), {"type": "null"}]}}),
            obj({"e": {"type": "null"}}),
            "2 alternatives -> one",
            True,
        ),
    ],
    ids=[
        "closed",
        "opened",
        "max-lowered",
        "max-raised",
        "min-added",
        "min-removed",
        "max-length-added",
        "pattern-added",
        "pattern-removed",
        "if-added",
        "not-removed",
        "union-narrowed",
    ],
)
def test_what_narrows_the_values_accepted_is_breaking_what_widens_them_additive(
    old, new, says, breaking
):
    diff = classify(old, new)
    assert diff.kind == ("breaking" if breaking else "additive")
    assert says in diff.advice()


def test_a_reply_envelope_made_exactly_one_of_two_members_is_breaking():
    """v2's JSON-RPC result as first published (both members optional) against the union the
    wire parses with: a reply with both, or neither, is no longer accepted."""
    error = obj({"code": {"type": "integer"}, "message": S}, ["code", "message"])
    either = {"anyOf": [error, {"type": "null"}]}
    loose = obj({"jsonrpc": {"const": "2.0"}, "result": {}, "error": either}, ["jsonrpc"])
    success = obj(
        {"jsonrpc": {"const": "2.0"}, "result": {}, "error": {"type": "null"}},
        ["jsonrpc", "result"],
        title="Success",
    )
    failure = obj(
        {"jsonrpc": {"const": "2.0"}, "error": error}, ["jsonrpc", "error"], title="Failure"
    )
    diff = classify(loose, {"oneOf": [success, failure]})
    assert diff.kind == "breaking" and diff.advice().endswith(BREAKING)
    found = {(c.path, c.what) for c in diff.changes if c.breaking}
    assert ("$<Success>.result", "property became required") in found
    assert ("$<Success>.error", "2 alternatives -> one") in found
    assert ("$<Failure>.result", "property removed") in found
