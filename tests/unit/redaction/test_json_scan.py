"""The fast path's gate (issue 27): run by Rust's engine, it finds every rule it stands for."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.domain import ToolCall
from harness.hooks.contexts import ToolInvokedContext
from harness.redaction import MASK, Redactor
from harness.redaction.json_scan import Gate

# Any text a settings file or a hooks file could hold: regex syntax, quotes, backslashes,
# control characters and Unicode, no lone surrogates (no JSON text can hold one).
_literals = st.text(st.characters(blacklist_categories=("Cs",)), min_size=4, max_size=12).filter(
    lambda s: s.strip() == s and MASK not in s
)


@settings(max_examples=200, deadline=None)
@given(_literals)
def test_a_configured_secret_of_any_shape_is_found_by_the_gate(secret):
    redactor = Redactor(secrets=[secret], defaults=False)
    assert redactor._detect_json is not None  # the fast path stays on
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"q": f"<{secret}>"}))
    out = redactor.redact(ctx)
    assert out == redactor._walk(ctx) and out is not ctx
    # Masked where it was. Not "the secret is nowhere in the output": a secret such as
    # "null" or "EDAC" is spelled by the JSON's own shape or by the mask itself.
    masked = out.call.arguments["q"]
    assert isinstance(masked, str) and MASK in masked and masked != f"<{secret}>"


@settings(max_examples=200, deadline=None)
@given(_literals)
def test_a_configured_field_of_any_name_is_found_by_the_gate(name):
    redactor = Redactor(fields=[name], defaults=False)
    value = {name: "hidden value", "other": "kept"}
    assert redactor.redact(value) == redactor._walk(value) == {name: MASK, "other": "kept"}


def test_a_clean_context_keeps_the_fast_path_beside_configured_punctuation():
    redactor = Redactor(secrets=["a.b*c(d)[e]"], fields=["x.y+z"])
    ctx = ToolInvokedContext(call=ToolCall(id="1", name="x", arguments={"q": "abcde x_y_z"}))
    assert redactor.redact(ctx) is ctx  # "." and "*" are literal: no false hit, no copy
    assert redactor.redact_text("1 a.b*c(d)[e] 2") == f"1 {MASK} 2"


def test_bytes_that_are_not_utf8_are_never_clean():
    gate = Gate.build(["never"])
    assert gate is not None and not gate.hits(b"clean text")
    assert gate.hits(b"clean \xff text")  # not JSON: not proved clean


def test_a_gate_rusts_engine_refuses_is_no_gate():
    assert Gate.build(["(?<=a)b"]) is None  # a look-behind: no fast path, not a wrong one


def test_a_slack_webhook_is_found_whatever_the_case_of_its_host():
    redactor = Redactor()
    value = {"u": "see https://HOOKS.Slack.COM/services/T000/B000/XXXXXXXX now"}
    out = redactor.redact(value)
    assert out == redactor._walk(value) and "XXXXXXXX" not in out["u"]
