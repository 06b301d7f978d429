"""Reading recordings: every problem named with the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.recording.format import FORMAT, RecordingError, load

HEADER = {
    "type": "recording",
    "format": FORMAT,
    "started_at": "2026-12-04T00:00:00+00:00",
    "bot_user_id": "UBOT",
    "local": True,
    "captures": ["requests"],
}
REQUEST = {
    "type": "request",
    "id": "r1",
    "at": 0.5,
    "transport": "http",
    "http": {
        "path": "/slack/events",
        "headers": {"content-type": "application/json"},
        "body": json.dumps({"type": "event_callback", "event": {"type": "x"}}),
    },
}
EFFECT = {
    "type": "web_api",
    "request": "r1",
    "at": 0.6,
    "origin": "worker",
    "method": "chat.postMessage",
    "args": {"text": "hi"},
    "response": {"ok": True},
}


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "r.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


def test_a_recording_reads_back_with_effects_linked_and_writes_the_same(tmp_path):
    path = write(tmp_path, HEADER, EFFECT, REQUEST)  # an effect may come before its request
    recording = load(path)
    assert [r.id for r in recording.requests] == ["r1"]
    assert recording.requests[0].payload() == {"type": "event_callback", "event": {"type": "x"}}
    assert [e.type for e in recording.effects["r1"]] == ["web_api"]
    again = write(tmp_path, *recording.lines())
    assert load(again).lines() == recording.lines()


@pytest.mark.parametrize(
    ("lines", "problem"),
    [
        ([REQUEST], r"r\.jsonl:1: the first line must be the"),
        ([HEADER, {"type": "nonsense"}], r"r\.jsonl:2: not a recording line"),
        ([HEADER, "{oops"], r"r\.jsonl:2: not JSON"),
        ([HEADER, HEADER], r"r\.jsonl:2: a second header"),
        ([{**HEADER, "format": FORMAT + 1}], r"format 2 is newer than this release reads"),
        ([], r"empty, not a recording"),
    ],
)
def test_each_bad_file_is_named_with_its_line(tmp_path, lines, problem):
    with pytest.raises(RecordingError, match=problem):
        load(write(tmp_path, *lines))


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(RecordingError, match=r"cannot read .*nope\.jsonl"):
        load(tmp_path / "nope.jsonl")
