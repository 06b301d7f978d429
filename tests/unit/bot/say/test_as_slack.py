"""The requests the tools send as Slack would: signed as Slack signs, shaped as Slack shapes."""

from __future__ import annotations

import json
from urllib.parse import parse_qs

from slack_sdk.signature import SignatureVerifier

from bot.say.as_slack import mention_body, signed_headers, slash_body


def test_signed_headers_pass_slack_s_verifier_with_that_secret_only():
    body = slash_body("/model gpt-x", user="U1", team="T1", channel="C1", response_url="u")
    headers = signed_headers("secret", body, "application/x-www-form-urlencoded")
    ts, signature = headers["X-Slack-Request-Timestamp"], headers["X-Slack-Signature"]
    assert SignatureVerifier("secret").is_valid(body, ts, signature)
    assert not SignatureVerifier("another").is_valid(body, ts, signature)


def test_a_slash_body_splits_the_command_from_its_text():
    body = parse_qs(
        slash_body(
            "/task budget tokens 20k",
            user="U1",
            team="T1",
            channel="C1",
            response_url="http://127.0.0.1:3000/_local/response/k",
        )
    )
    assert (body["command"], body["text"]) == (["/task"], ["budget tokens 20k"])
    assert body["response_url"] == ["http://127.0.0.1:3000/_local/response/k"]


def test_a_mention_in_a_thread_is_a_plain_message_there():
    first = json.loads(mention_body("hi", user="U1", team="T1", channel="C1", bot_user="UB"))
    reply = json.loads(
        mention_body("more", user="U1", team="T1", channel="C1", bot_user="UB", thread="1.2")
    )
    assert (first["event"]["type"], first["event"]["text"]) == ("app_mention", "<@UB> hi")
    assert (reply["event"]["type"], reply["event"]["text"]) == ("message", "more")
    assert reply["event"]["thread_ts"] == "1.2"
