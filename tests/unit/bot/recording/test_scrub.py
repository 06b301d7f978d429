"""The scrubber: what a recording must not hold, in every encoding a Slack body comes in."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl, urlencode

from bot.recording.scrub import RESPONSE_URL_PLACEHOLDER, Scrubber

SECRET = "a-signing-secret-of-ours"
TOKEN = "xoxb-1234567890-0987654321-abcdefABCDEF"
URL = "https://hooks.slack.com/commands/T0001/1234/abcdefSECRETpath"


def test_a_form_body_loses_its_secrets_and_response_url_field_by_field():
    raw = urlencode(
        {
            "token": "legacyVerification",
            "text": f"{SECRET} and {TOKEN}",
            "response_url": URL,
            "user_id": "U024BE7LH",
        }
    )
    fields = dict(parse_qsl(Scrubber([SECRET]).body(raw, "application/x-www-form-urlencoded")))
    assert fields == {
        "token": "[REDACTED]",
        "text": "[REDACTED] and [REDACTED]",
        "response_url": RESPONSE_URL_PLACEHOLDER,
        "user_id": "U024BE7LH",
    }


def test_an_interactivity_payload_inside_a_form_is_scrubbed_as_json():
    payload = {
        "type": "block_actions",
        "token": "t0ken-legacy",
        "response_url": URL,
        "actions": [{"value": TOKEN}],
    }
    raw = urlencode({"payload": json.dumps(payload)})
    body = Scrubber([]).body(raw, "application/x-www-form-urlencoded")
    inner = json.loads(dict(parse_qsl(body))["payload"])
    assert inner["token"] == "[REDACTED]" and inner["response_url"] == RESPONSE_URL_PLACEHOLDER
    assert inner["actions"] == [{"value": "[REDACTED]"}]


def test_a_json_body_keeps_its_shape_and_loses_secrets_at_any_depth():
    body = {"event": {"text": f"see {SECRET}", "blocks": [{"text": TOKEN}]}, "event_id": "Ev1"}
    out = json.loads(Scrubber([SECRET]).body(json.dumps(body), "application/json"))
    assert out == {
        "event": {"text": "see [REDACTED]", "blocks": [{"text": "[REDACTED]"}]},
        "event_id": "Ev1",
    }


def test_pseudonyms_are_consistent_keyed_and_spare_words_and_local_ids():
    scrub = Scrubber([], pseudonym_key=b"k" * 32)
    text = "<@U024BE7LH> in C0123ABCD said hi to U024BE7LH; CONTRIBUTING UBOTLOCAL ULOCAL"
    out = scrub.text(text)
    first = scrub.pseudonym("U024BE7LH")
    assert out == (
        f"<@{first}> in {scrub.pseudonym('C0123ABCD')} said hi to {first}; "
        "CONTRIBUTING UBOTLOCAL ULOCAL"
    )
    assert first.startswith("U") and first != "U024BE7LH"
    assert Scrubber([], pseudonym_key=b"other" * 8).pseudonym("U024BE7LH") != first
    assert Scrubber([]).text(text) == text  # off: ids as they are


def test_a_body_that_does_not_parse_is_still_redacted_as_text():
    assert Scrubber([SECRET]).body(f"{{not json {SECRET}", "application/json") == (
        "{not json [REDACTED]"
    )
