"""The replay's view: what a person sees of an exchange, the same for two runs that look alike."""

from __future__ import annotations

import json

from bot.recording.format import (
    Answer,
    Header,
    HttpRequest,
    Recording,
    RequestLine,
    ResponseUrlLine,
    WebApiLine,
)
from bot.replay.compare import compare
from bot.replay.view import views

MENTION_TS = "1700000100.000100"


def recording(post_ts: str, *, uuid: str, seconds: int, answer: str = "hello") -> Recording:
    header = Header(started_at="x", bot_user_id="UBOT", local=True, captures=("requests",))
    event = {"type": "app_mention", "ts": MENTION_TS, "channel": "C1", "text": "hi"}
    body = json.dumps({"type": "event_callback", "event": event})
    request = RequestLine(
        id="r1",
        at=0.0,
        transport="http",
        http=HttpRequest(
            path="/slack/events", body=body, headers={"content-type": "application/json"}
        ),
        response=Answer(status=200),
    )
    rec = Recording(header, [request])

    def call(at: float, method: str, **args: object) -> WebApiLine:
        ts = {"ts": post_ts} if method == "chat.postMessage" else {}
        return WebApiLine(
            request="r1",
            at=at,
            origin="worker",
            method=method,
            args=args,
            response={"ok": True, **ts},
        )

    rec.effects["r1"] = [
        call(
            0.1,
            "chat.postMessage",
            channel="C1",
            thread_ts=MENTION_TS,
            text="working · 0 s",
            metadata={"event_payload": {"key": f"task/{uuid}/7"}},
        ),
        call(0.2, "assistant.threads.setStatus", channel_id="C1", status="is working…"),
        call(0.3, "chat.update", channel="C1", ts=post_ts, text=f"done · {seconds} s in {uuid}"),
        call(0.4, "reactions.add", channel="C1", timestamp=MENTION_TS, name="eyes"),
        call(0.5, "reactions.add", channel="C1", timestamp=MENTION_TS, name="white_check_mark"),
        call(0.6, "reactions.remove", channel="C1", timestamp=MENTION_TS, name="eyes"),
        ResponseUrlLine(
            request="r1", at=0.7, payload={"text": answer, "response_type": "ephemeral"}
        ),
    ]
    return rec


def test_an_exchange_is_seen_as_it_ended_up():
    [view] = views(
        recording("1700000200.000001", uuid="0" * 8 + "-0000-0000-0000-" + "0" * 12, seconds=3)
    ).values()
    assert view == {
        "response": {"status": 200, "body": ""},
        "replies": [{"text": "hello", "response_type": "ephemeral"}],
        "posts": [
            {
                "method": "chat.postMessage",
                "channel": "C1",
                "thread": "<ts1>",
                "text": "done · <n> s in <uuid>",
            }
        ],
        "calls": [{"reactions": ["white_check_mark"], "on": "<ts1>"}],
    }


def test_two_runs_differing_only_in_ts_uuids_durations_and_updates_are_the_same():
    one = recording("1700000200.000001", uuid="11111111-1111-1111-1111-111111111111", seconds=3)
    two = recording("1700000999.999999", uuid="22222222-2222-2222-2222-222222222222", seconds=41)
    two.effects["r1"].insert(3, two.effects["r1"][2])  # one more chat.update with the same text
    [verdict] = compare(one.requests, views(one), views(two))
    assert verdict.same


def test_a_different_reply_is_a_diff_naming_both_texts():
    one = recording("1700000200.000001", uuid="u", seconds=1)
    two = recording("1700000200.000001", uuid="u", seconds=1, answer="goodbye")
    [verdict] = compare(one.requests, views(one), views(two))
    assert not verdict.same
    assert '-      "text": "hello"' in "\n".join(verdict.diff)
    assert '+      "text": "goodbye"' in "\n".join(verdict.diff)
