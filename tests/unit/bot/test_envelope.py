"""The gate's parse of a body is bolt's, but a form is parsed once and never guessed at (issue 27).

The gate hands bolt its own parse when the two differ (:func:`bot.gate.bolt_request`), so
where they may differ is pinned here: everywhere but a form that merely holds the word
"payload" (kept as the form it is) and a form field given twice (refused).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from slack_bolt.request.internals import parse_body

from bot.envelope import MalformedBody, parse

FORM = {"content-type": "application/x-www-form-urlencoded"}
JSON = {"content-type": "application/json"}
SLASH = urlencode(
    {"command": "/model", "text": "gpt-x", "team_id": "T1", "user_id": "U1", "channel_id": "C1"}
)
CLICK = urlencode(
    {"payload": json.dumps({"type": "block_actions", "actions": [{"action_id": "a"}]})}
)
EVENT = json.dumps({"type": "event_callback", "event": {"type": "app_mention", "text": "hi"}})


@pytest.mark.parametrize(
    ("text", "headers"),
    [(SLASH, FORM), (CLICK, FORM), (EVENT, JSON), (EVENT, FORM), ("", FORM), ("a=", FORM)],
    ids=["slash", "click", "event", "json-labelled-form", "empty", "blank-value"],
)
def test_a_body_is_parsed_as_bolt_parses_it(text, headers):
    assert parse(text, headers) == parse_body(text, headers["content-type"])


def test_a_form_holding_the_word_payload_stays_the_form_it_is():
    text = urlencode({"command": "/task", "text": "sub-task check the payload size"})
    assert parse_body(text, FORM["content-type"]) == {}  # bolt's own parse loses it
    assert parse(text, FORM)["text"] == "sub-task check the payload size"


@pytest.mark.parametrize("extra", ["text=claude-y", "command=%2Ftask", "payload=%7B%7D"])
def test_a_form_field_given_twice_is_refused_by_name(extra):
    text = f"{SLASH if not extra.startswith('payload') else CLICK}&{extra}"
    with pytest.raises(MalformedBody, match="more than once: " + extra.split("=")[0]):
        parse(text, FORM)


def test_an_unreadable_payload_field_is_refused():
    with pytest.raises(MalformedBody, match="unparsable"):
        parse(urlencode({"payload": "{not json"}), FORM)
