"""The corpus (``tests/fixtures/slack/corpus``): every kind of request the bot handles, replayed.

Each file was recorded with ``make corpus`` (:mod:`tests.support.slack_corpus`); here every
file is replayed against one real stack (each file keeps to a channel of its own) and must
do exactly what it recorded, so a change in how the bot answers any kind of request fails
here with a diff naming the exchange. A change meant is taken with ``make corpus``.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.recording import Recording, load
from bot.replay.compare import compare, report
from bot.replay.runner import Replay, Target
from bot.replay.view import views
from bot.testing.stack import Stack, running_stack
from tests.support.slack_corpus import CORPUS, FILES
from tests.support.thread_scan import recorded_leaks


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    record = tmp_path_factory.mktemp("corpus") / "replayed.jsonl"
    with running_stack(record=record) as running:
        yield running


def _every() -> list[Path]:
    return [CORPUS / f"{name}.jsonl" for name in FILES]


@pytest.mark.parametrize("path", _every(), ids=lambda p: p.stem)
def test_each_corpus_file_replays_as_recorded(stack: Stack, path: Path) -> None:
    recording = load(path)
    target = Target(base=stack.bot_base, secret=stack.signing_secret)
    replay = Replay(recording, target, patience=10.0, quiet=0.5)
    asyncio.run(replay.run())
    verdicts = compare(recording.requests, views(recording), views(replay.observed()))
    out = io.StringIO()
    assert report(verdicts, out), out.getvalue()


@pytest.mark.parametrize("path", _every(), ids=lambda p: p.stem)
def test_what_the_corpus_shows_holds_no_internals(path: Path) -> None:
    """What each file's bot and worker showed (answers, posts, response-URL replies), which
    every replay must show again, names no id, class, hook point or socket (issue 26)."""
    assert recorded_leaks(load(path)) == []


def test_the_corpus_holds_every_kind_of_request_the_bot_handles() -> None:
    seen: set[str] = set()
    for path in _every():
        recording: Recording = load(path)
        for request in recording.requests:
            body = request.payload()
            event = body.get("event") if isinstance(body.get("event"), dict) else {}
            seen.add(f"transport:{request.transport}")
            seen.add(f"type:{body.get('type') or ('ssl_check' if body.get('ssl_check') else '')}")
            seen.add(f"command:{body['command']}" if body.get("command") else "")
            kind = event.get("subtype") or event.get("channel_type")
            seen.add(f"event:{event.get('type')}:{kind}" if event else "")
            if request.http and "x-slack-retry-num" in request.http.headers:
                seen.add("retry:http")
            if request.envelope and request.envelope.retry_attempt:
                seen.add("retry:socket_mode")
            seen.add(f"envelope:{request.envelope.type}" if request.envelope else "")
        assert all(r.response is not None for r in recording.requests), path  # answers recorded
    wanted = {
        "transport:http",
        "transport:socket_mode",
        "type:event_callback",
        "type:block_actions",
        "type:url_verification",
        "type:ssl_check",
        "command:/model",
        "command:/effort",
        "command:/task",
        "event:app_mention:None",
        "event:message:channel",
        "event:message:message_changed",
        "event:message:bot_message",
        "event:message:im",
        "retry:http",
        "retry:socket_mode",
        "envelope:events_api",
        "envelope:slash_commands",
        "envelope:interactive",
    }
    assert wanted <= seen, sorted(wanted - seen)
