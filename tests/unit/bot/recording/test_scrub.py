"""The scrubber: what a recording must not hold, in every encoding a Slack body comes in."""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import parse_qsl, quote, urlencode

import pytest

from bot.recording.encodings import base64_cores, encoded_forms
from bot.recording.scrub import RESPONSE_URL_PLACEHOLDER, UNREADABLE, Scrubber

SECRET = "a-signing-secret-of-ours"
TOKEN = "xoxb-1234567890-0987654321-abcdefABCDEF"
URL = "https://hooks.slack.com/commands/T0001/1234/abcdefSECRETpath"
KEY = "q+7/Zk3W/xY9+aBcDeFgHiJkLmNoPqRsTuVwXyZ0123="
"""Shaped like a payload key: base64, with the ``+``, ``/`` and ``=`` percent-encoding changes."""
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"


def test_a_form_body_loses_its_secrets_and_response_url_field_by_field():
    raw = urlencode(
        {
            "token": "legacyVerification",
            "text": f"{SECRET} and {TOKEN}",
            "response_url": URL,
            "user_id": "U024BE7LH",
        }
    )
    body = Scrubber([SECRET]).request_body(raw.encode(), FORM, readable=True)
    assert dict(parse_qsl(body)) == {
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
    body = Scrubber([]).request_body(raw.encode(), FORM, readable=True)
    inner = json.loads(dict(parse_qsl(body))["payload"])
    assert inner["token"] == "[REDACTED]" and inner["response_url"] == RESPONSE_URL_PLACEHOLDER
    assert inner["actions"] == [{"value": "[REDACTED]"}]


def test_a_json_body_keeps_its_shape_and_loses_secrets_at_any_depth():
    body = {"event": {"text": f"see {SECRET}", "blocks": [{"text": TOKEN}]}, "event_id": "Ev1"}
    out = Scrubber([SECRET]).request_body(json.dumps(body).encode(), JSON, readable=True)
    assert json.loads(out) == {
        "event": {"text": "see [REDACTED]", "blocks": [{"text": "[REDACTED]"}]},
        "event_id": "Ev1",
    }


def test_a_json_body_labelled_a_form_is_recorded_as_the_json_that_arrived():
    body = {"type": "url_verification", "challenge": "c1", "token": "legacy"}
    out = Scrubber([]).request_body(json.dumps(body).encode(), FORM, readable=True)
    assert json.loads(out) == {"type": "url_verification", "challenge": "c1", "token": "[REDACTED]"}


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


@pytest.mark.parametrize(
    ("raw", "content_type"),
    [
        (f"command=%2Fmodel&text={quote(KEY, safe='')}&team_id=T0TEAM99".encode(), JSON),
        (f'{{"text": "{KEY}", "url": "{URL}", "team_id": "T0TEAM99"'.encode(), JSON),
        (json.dumps(json.dumps({"text": KEY, "team": "T0TEAM99"})).encode(), JSON),
        (b"text=\xff\xfe" + KEY.encode(), FORM),
    ],
    ids=["form-labelled-json", "truncated-json", "double-encoded", "not-utf-8"],
)
def test_a_body_the_bot_could_not_read_is_only_its_length_and_hash(raw: bytes, content_type):
    scrub = Scrubber([KEY], pseudonym_key=b"k" * 32)
    out = scrub.request_body(raw, content_type, readable=False)
    assert out.startswith(UNREADABLE) and f"{len(raw)} bytes, hmac-sha256 " in out
    assert "T0TEAM99" not in out and "SECRET" not in out
    assert out == scrub.request_body(raw, content_type, readable=False)  # the same every time
    assert Scrubber([]).request_body(raw, content_type, readable=False) != out  # unkeyed: sha256
    with pytest.raises(ValueError):
        json.loads(out)  # so the bot refuses it again on replay, whatever the label


def test_known_secrets_are_masked_in_their_encoded_forms_in_readable_text():
    scrub = Scrubber([KEY, TOKEN, SECRET])
    typed = [
        quote(KEY, safe=""),
        quote(quote(KEY, safe=""), safe=""),
        re.sub("%[0-9A-F]{2}", lambda m: m[0].lower(), quote(KEY, safe="")),
        KEY.replace("/", "\\/"),  # as JSON escapes it
        base64.b64encode(TOKEN.encode()).decode(),
        base64.b64encode(b"x" + SECRET.encode() + b"yz").decode(),
        base64.urlsafe_b64encode(b"ab" + KEY.encode()).decode(),
    ]
    for form in typed:
        out = scrub.text(f"look: {form} !")
        assert "[REDACTED]" in out and form not in out, form


@pytest.mark.parametrize(
    "url",
    [
        "https%3A%2F%2Fhooks.slack.com%2Factions%2FT0001%2F1234%2FabcSECRET",
        "https%253A%252F%252Fhooks.slack.com%252Fcommands%252FT0001%252F1%252FabcSECRET",
        "https:\\/\\/hooks.slack.com\\/actions\\/T0001\\/1234\\/abcSECRET",
        "https://hooks.slack.com/services/T0001/B1/abcSECRET",
    ],
    ids=["percent", "percent-twice", "json-escaped", "plain"],
)
def test_a_response_urls_path_is_masked_however_it_is_encoded(url: str):
    out = Scrubber([]).text(f"post to {url} now")
    assert "SECRET" not in out and "hooks.slack.com" in out and out.endswith(" now")


def test_a_secrets_base64_cores_are_found_at_every_alignment():
    for prefix in (b"", b"a", b"ab", b"abc"):
        for suffix in (b"", b"z", b"zz"):
            encoded = base64.b64encode(prefix + KEY.encode() + suffix).decode()
            assert any(core in encoded for core in base64_cores(KEY.encode())), (prefix, suffix)
    assert all(len(core) >= len(KEY) for core in encoded_forms(KEY) if core != KEY)
