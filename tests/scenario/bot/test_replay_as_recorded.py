"""Issue 28: a recording holds what arrived, and its replay sends that and reports what came back.

The real bot (local mode, recording) takes signed requests; ``bot.replay``'s runner replays the
file it wrote (or one edited by hand, as people do) against that same bot and compares.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from bot.recording import Recording, load
from bot.recording.format import Answer, HttpRequest, RequestLine
from bot.replay.compare import compare, report
from bot.replay.runner import Replay, Target
from bot.replay.view import views

from .conftest import FIXTURES, Slack, serve_bot

FORM = "application/x-www-form-urlencoded"


async def _replayed(slack: Slack, recording: Recording) -> tuple[bool, str, Recording]:
    """Replay ``recording`` against the bot behind ``slack``: same?, the report, what it did."""
    replay = Replay(recording, Target(base=slack.base, secret=Slack.signing_secret), quiet=0.2)
    observed = await replay.run()
    out = io.StringIO()
    same = report(compare(recording.requests, views(recording), views(observed)), out)
    return same, out.getvalue(), observed


async def test_a_json_body_sent_as_a_form_is_recorded_as_json_and_replays_the_same(
    harness, tmp_path: Path
):
    path = tmp_path / "labelled.jsonl"
    body = (FIXTURES / "url_verification.json").read_text()
    async for slack in serve_bot(harness, tmp_path, record=path):
        status, answer = await slack.post(body, slack.build_headers(body, FORM))
        assert status == 200 and "challenge" in answer  # the bot reads it as JSON, as bolt does
        recording = load(path)
        [request] = recording.requests
        assert request.http is not None and request.http.headers["content-type"] == FORM
        assert json.loads(request.http.body)["type"] == "url_verification"  # not form fields
        same, printed, _ = await _replayed(slack, recording)
    assert same, printed


async def test_signature_headers_left_in_a_recording_do_not_override_the_fresh_signature(
    harness, tmp_path: Path
):
    path = tmp_path / "edited.jsonl"
    body = (FIXTURES / "url_verification.json").read_text()
    async for slack in serve_bot(harness, tmp_path, record=path):
        status, _ = await slack.post(body, slack.build_headers(body, "application/json"))
        assert status == 200
        recording = load(path)
        [request] = recording.requests
        assert request.http is not None
        stale = slack.build_headers(body, "application/json", timestamp="1500000000")
        edited = request.model_copy(
            update={"http": request.http.model_copy(update={"headers": stale})}
        )  # as a person pastes a request with the headers Slack sent
        same, printed, _ = await _replayed(slack, Recording(recording.header, [edited]))
    assert same, printed


async def test_a_body_too_large_replays_as_the_413_it_got_and_is_printed_cut(
    harness, tmp_path: Path
):
    path = tmp_path / "large.jsonl"
    body = (FIXTURES / "url_verification.json").read_text()
    huge = "x" * 20_000_000
    async for slack in serve_bot(harness, tmp_path, record=path):
        status, _ = await slack.post(body, slack.build_headers(body, "application/json"))
        assert status == 200  # the header, from this bot
        header = load(path).header
        command = slack.slash_body("/model", huge, user="U0LARGE1", channel="C0LARGE1", key="k")
        large = RequestLine(
            id="big-1",
            at=0.0,
            transport="http",
            http=HttpRequest(path="/slack/events", headers={"content-type": FORM}, body=command),
            response=Answer(status=200, body=huge, content_type="text/plain"),
        )  # as a bot taking larger bodies answered it
        same, printed, observed = await _replayed(slack, Recording(header, [large]))
    assert not same
    assert len(printed) < 20_000, len(printed)  # the text, cut: not 20 MB, let alone twice
    assert "not answered" not in printed, printed[:2000]
    assert '+    "status": 413' in printed, printed[:2000]
    [answered] = observed.requests
    assert answered.response is not None and answered.response.status == 413
