"""The conformance kit's fixtures and judge (issue 15); the kit against real executors is
tests/examples/test_conformance.py."""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path
from typing import get_args

import pytest
from pydantic import ValidationError

from harness.hook_server.conformance import Expect, Fixture, Got, judge, load_fixtures
from harness.hook_server.conformance.fixture import Outcome, Signature
from harness.hook_server.conformance.runner import contains
from harness.hooks import OPERATIONS
from tests.support import conformance_fixtures

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "harness" / "hook_server" / "conformance" / "fixtures"
REGENERATE = "run `PYTHONPATH=. python -m tests.support.conformance_fixtures` and commit it"


def test_the_committed_fixtures_are_what_the_generator_makes():
    on_disk = {path.name: path.read_text() for path in FOLDER.glob("*.json")}
    files = conformance_fixtures.FILES
    made = {name: conformance_fixtures.render(data) for name, data in files.items()}
    assert on_disk == made, REGENERATE


def test_every_operation_has_a_round_trip_fixture_and_ids_are_unique():
    fixtures = load_fixtures()
    assert len({f.id for f in fixtures}) == len(fixtures)
    assert {f.id for f in fixtures if f.id.startswith("contexts.")} == {
        f"contexts.{op}" for op in OPERATIONS
    }
    assert not any(f.transport == "mcp" for f in load_fixtures("jsonrpc"))
    assert not any(f.transport == "jsonrpc" for f in load_fixtures("mcp"))
    assert {f.expect.outcome for f in fixtures} == set(get_args(Outcome))


def test_signature_fixtures_run_only_when_the_kit_signs_and_only_over_jsonrpc():
    signed = {f.id for f in load_fixtures() if f.signed}
    assert signed == {f"signature.{kind}" for kind in get_args(Signature)}
    assert signed <= {f.id for f in load_fixtures("jsonrpc", signed=True)}
    assert not signed & {f.id for f in load_fixtures("jsonrpc", signed=False)}
    assert not signed & {f.id for f in load_fixtures("mcp")}
    with pytest.raises(ValidationError, match="JSON-RPC only"):
        Fixture.model_validate(
            fixture(send={"signature": "unsigned", "point": "shutdown.pre", "context": {}})
        )


def test_the_wheel_ships_the_fixtures():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    globs = data["package-data"]["harness"]
    for path in FOLDER.glob("*.json"):
        inside = str(path.relative_to(ROOT / "harness"))
        assert any(fnmatch.fnmatch(inside, glob) for glob in globs), inside


def fixture(**fields):
    return {"id": "x", "description": "d", "expect": {"outcome": "pass"}, **fields}


def test_a_fixture_that_would_rot_or_mix_transports_is_refused():
    with pytest.raises(ValidationError, match="call"):  # a context that no longer validates
        Fixture.model_validate(fixture(send={"point": "tool.invoked.pre", "context": {}}))
    with pytest.raises(ValidationError, match="JSON-RPC only"):
        Fixture.model_validate(fixture(send={"body": "{}"}))
    with pytest.raises(ValidationError, match="MCP only"):
        Fixture.model_validate(fixture(transport="jsonrpc", send={"tool": "t"}))


SUB, WIDER = {"a": {"b": 1}}, {"a": {"b": 1, "c": 0}}


@pytest.mark.parametrize(
    ("expect", "got", "ok"),
    [
        ({"outcome": "pass"}, Got("pass"), True),
        ({"outcome": "pass"}, Got("rewrite", context={}), False),
        ({"outcome": "abort", "refusal": True}, Got("abort", refusal=False), False),
        ({"outcome": "abort"}, Got("abort", refusal=False), True),
        ({"outcome": "error", "code": -32602}, Got("error", code=-32601), False),
        ({"outcome": "error", "code": [-32602, -32601]}, Got("error", code=-32601), True),
        ({"outcome": "error"}, Got("error"), True),
        ({"outcome": "batch"}, Got("error", code=-32600), True),
        ({"outcome": "batch"}, Got("error", code=-32603), False),
        ({"outcome": "rewrite", "context": SUB}, Got("rewrite", context=WIDER), True),
        ({"outcome": "rewrite", "context": SUB}, Got("rewrite", context={"a": {"b": 2}}), False),
        ({"outcome": "timeout"}, Got("transport_error", "connect"), False),
        ({"outcome": "ask", "timeout_seconds": 120}, Got("ask", timeout_seconds=120), True),
        ({"outcome": "ask", "timeout_seconds": 120}, Got("ask", timeout_seconds=0), False),
        ({"outcome": "ask"}, Got("abort", refusal=True), False),
        ({"outcome": "abort", "refusal": True}, Got("ask", refusal=True), False),
        ({"outcome": "unauthorized"}, Got("unauthorized", "HTTP 401"), True),
        ({"outcome": "unauthorized"}, Got("pass"), False),
    ],
)
def test_judge(expect, got, ok):
    problem = judge(Expect.model_validate(expect), got)
    assert (problem is None) == ok
    if not ok:
        assert problem.startswith("expected ") and f"got {got.kind}" in problem


def test_a_failed_fixture_says_what_its_failure_means():
    expect = Expect(outcome="unauthorized", meaning="it verifies no signature")
    problem = judge(expect, Got("pass", "passed through"))
    assert problem == (
        "expected unauthorized (HTTP 401), got pass: passed through\nit verifies no signature"
    )
    assert judge(expect, Got("unauthorized")) is None


def test_contains_compares_objects_key_by_key_and_the_rest_by_equality():
    assert contains({"a": [1, 2], "b": 1}, {"a": [1, 2]})
    assert not contains({"a": [1, 2, 3]}, {"a": [1, 2]})
    assert not contains({"a": 1}, {"b": None})
