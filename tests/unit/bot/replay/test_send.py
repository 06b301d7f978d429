"""A recorded request made sendable: a fresh response URL, this bot's id, mapped ts, signed."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qsl, urlencode

from slack_sdk.signature import SignatureVerifier

from bot.recording.format import REPLAY_HEADER, Envelope, HttpRequest, RequestLine
from bot.recording.scrub import RESPONSE_URL_PLACEHOLDER
from bot.replay.send import outgoing

FORM = "application/x-www-form-urlencoded"
URL = "http://127.0.0.1:3000/_local/response/abc"


def verified(message, secret: str = "s3cret") -> bool:
    return SignatureVerifier(secret).is_valid(
        body=message.body,
        timestamp=message.headers["X-Slack-Request-Timestamp"],
        signature=message.headers["X-Slack-Signature"],
    )


def test_a_click_gets_the_replayed_ts_a_fresh_response_url_and_a_signature():
    payload = {
        "type": "block_actions",
        "response_url": RESPONSE_URL_PLACEHOLDER,
        "container": {"message_ts": "1700000200.000001"},
        "actions": [{"value": "staging"}],
        "user": {"id": "U1"},
    }
    request = RequestLine(
        id="r5",
        at=1.0,
        transport="http",
        http=HttpRequest(
            path="/slack/events",
            headers={"content-type": FORM, "x-slack-retry-num": "1"},
            body=urlencode({"payload": json.dumps(payload)}),
        ),
    )
    message = outgoing(
        request,
        secret="s3cret",
        response_url=URL,
        replace={"1700000200.000001": "1799999999.123456"},
    )
    sent = json.loads(dict(parse_qsl(message.body))["payload"])
    assert sent["response_url"] == URL
    assert sent["container"]["message_ts"] == "1799999999.123456"
    assert message.headers[REPLAY_HEADER] == "r5" and message.headers["x-slack-retry-num"] == "1"
    assert verified(message)
    assert abs(int(message.headers["X-Slack-Request-Timestamp"]) - time.time()) < 5


def test_a_socket_mode_command_is_sent_as_slack_would_over_http_with_the_bots_id():
    request = RequestLine(
        id="r2",
        at=0,
        transport="socket_mode",
        envelope=Envelope(
            type="slash_commands",
            envelope_id="e1",
            payload={"command": "/model", "text": "<@UREC1234> hi", "response_url": "x"},
        ),
    )
    message = outgoing(
        request, secret="s3cret", response_url=URL, replace={"UREC1234": "UBOTLOCAL"}
    )
    assert dict(parse_qsl(message.body)) == {
        "command": "/model",
        "text": "<@UBOTLOCAL> hi",
        "response_url": URL,
    }
    assert message.headers["Content-Type"] == FORM and verified(message)


def test_a_socket_mode_event_is_its_payload_as_json():
    request = RequestLine(
        id="r3",
        at=0,
        transport="socket_mode",
        envelope=Envelope(
            type="events_api",
            envelope_id="e2",
            retry_attempt=2,
            retry_reason="timeout",
            payload={"type": "event_callback", "event": {"type": "app_mention"}},
        ),
    )
    message = outgoing(request, secret="s3cret", response_url=URL, replace={})
    assert json.loads(message.body)["event"] == {"type": "app_mention"}
    assert message.headers["x-slack-retry-num"] == "2" and verified(message)


def test_signature_headers_left_in_a_recording_give_way_to_the_fresh_signature():
    body = json.dumps({"type": "url_verification", "challenge": "c1"})
    request = RequestLine(
        id="r7",
        at=0,
        transport="http",
        http=HttpRequest(
            path="/slack/events",
            headers={
                "Content-Type": "application/json",
                "X-Slack-Signature": "v0=" + "0" * 64,
                "x-slack-request-timestamp": "1500000000",
                "Content-Length": "3",
            },
            body=body,
        ),
    )
    message = outgoing(request, secret="s3cret", response_url=URL, replace={})
    assert verified(message) and message.body == body
    names = [name.lower() for name in message.headers]
    assert sorted(names) == sorted(
        {"content-type", "x-slack-signature", "x-slack-request-timestamp", REPLAY_HEADER}
    )


def test_a_json_body_labelled_a_form_is_sent_as_the_json_it_is():
    body = json.dumps({"type": "url_verification", "challenge": "c1"})
    request = RequestLine(
        id="r8",
        at=0,
        transport="http",
        http=HttpRequest(path="/slack/events", headers={"content-type": FORM}, body=body),
    )
    message = outgoing(request, secret="s3cret", response_url=URL, replace={})
    assert message.body == body and message.headers["Content-Type"] == FORM
