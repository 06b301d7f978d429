"""The corpus: a recording for every kind of request the bot handles (``make corpus`` writes it).

Each file of ``tests/fixtures/slack/corpus/`` is made in two steps, with the project's own
tools: the requests are written here (Slack's payloads, from ``tests/fixtures/slack``, each
file in a channel of its own, already scrubbed as the recorder writes them), then
``python -m bot.replay FILE --update`` runs them against a fresh stack and writes what the bot
and the worker did as the expectations. A click names the message it was on, so a file
gets its click after the question was recorded. ``tests/scenario/replay/
test_corpus.py`` replays every file on every run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bot.recording.format import (
    FORMAT,
    Envelope,
    Header,
    HttpRequest,
    Recording,
    RequestLine,
    WebApiLine,
    load,
)
from bot.recording.scrub import RESPONSE_URL_PLACEHOLDER

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "slack"
CORPUS = FIXTURES / "corpus"
OWNER, TEAM, BOT = "U0OWNER", "T0TEAM1", "UBOTLOCAL"
JSON, FORM = "application/json", "application/x-www-form-urlencoded"
ASK = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'


def _fixture(name: str, **event: Any) -> dict[str, Any]:
    payload: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    payload["token"] = "[REDACTED]"
    payload.get("event", {}).update(event)
    return payload


def _event(
    rid: str, at: float, payload: dict[str, Any], event_id: str, **headers: str
) -> RequestLine:
    payload = {**payload, "event_id": event_id}
    return RequestLine(
        id=rid,
        at=at,
        transport="http",
        http=HttpRequest(
            path="/slack/events",
            headers={"content-type": JSON, **headers},
            body=json.dumps(payload),
        ),
    )


def _form(rid: str, at: float, fields: dict[str, str]) -> RequestLine:
    return RequestLine(
        id=rid,
        at=at,
        transport="http",
        http=HttpRequest(
            path="/slack/events", headers={"content-type": FORM}, body=urlencode(fields)
        ),
    )


def _slash(rid: str, at: float, command: str, text: str, channel: str) -> RequestLine:
    return _form(
        rid,
        at,
        {
            "token": "[REDACTED]",
            "team_id": TEAM,
            "team_domain": "example",
            "channel_id": channel,
            "channel_name": "corpus",
            "user_id": OWNER,
            "user_name": "owner",
            "command": command,
            "text": text,
            "api_app_id": "A0APP1",
            "response_url": RESPONSE_URL_PLACEHOLDER,
            "trigger_id": f"{rid}.corpus",
        },
    )


def slash_commands() -> list[RequestLine]:
    """Slash commands: before any task, then on the task a mention started: help, reading and
    setting the model and effort, the status view."""
    channel = "C0CORPUS1"
    mention = _fixture("app_mention.json", channel=channel, text=f"<@{BOT}> start a task")
    said = [
        ("/task", "help"),
        ("/model", ""),
        ("/model", "offline"),
        ("/effort", "high"),
        ("/task", "status"),
    ]
    return [
        _slash("slash-1", 1.0, "/model", "", channel),
        _event("slash-2", 2.0, mention, "Ev0CORPUS1A"),
        *(_slash(f"slash-{i}", float(i), c, t, channel) for i, (c, t) in enumerate(said, 3)),
    ]


def mention_and_thread() -> list[RequestLine]:
    """A mention, a reply in its thread, an edit, another bot's message, Slack's retry of the
    mention, and the ``message`` event Slack sends beside an ``app_mention``."""
    channel, ts, reply = "C0CORPUS2", "1700000100.000100", "1700000200.000200"
    mention = _fixture("app_mention.json", channel=channel, text=f"<@{BOT}> hello corpus")
    return [
        _event("thread-1", 1.0, mention, "Ev0CORPUS2A"),
        _event(
            "thread-2",
            2.0,
            _fixture("message_with_mention.json", channel=channel, text=f"<@{BOT}> hello corpus"),
            "Ev0CORPUS2B",
        ),
        _event(
            "thread-3",
            3.0,
            _fixture(
                "message_in_thread.json",
                channel=channel,
                user=OWNER,
                ts=reply,
                event_ts=reply,
                thread_ts=ts,
                text="and what next?",
            ),
            "Ev0CORPUS2C",
        ),
        _event("thread-4", 4.0, _fixture("message_changed.json", channel=channel), "Ev0CORPUS2D"),
        _event(
            "thread-5",
            5.0,
            _fixture("bot_message_in_thread.json", channel=channel, thread_ts=ts),
            "Ev0CORPUS2E",
        ),
        _event(
            "thread-6",
            6.0,
            mention,
            "Ev0CORPUS2A",
            **{"x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout"},
        ),
    ]


def interactivity() -> list[RequestLine]:
    """A mention that asks a question with buttons (the click is added once it was posted)."""
    mention = _fixture(
        "app_mention.json",
        channel="C0CORPUS3",
        text=f"<@{BOT}> {ASK}",
        ts="1700000300.000100",
        event_ts="1700000300.000100",
    )
    return [_event("click-1", 1.0, mention, "Ev0CORPUS3A")]


def click_payload(recording: Recording, asked: str, channel: str) -> dict[str, Any]:
    """The ``block_actions`` payload of a click on the first button of the question that
    request ``asked`` of ``recording`` brought."""
    question = next(
        e
        for e in recording.effects[asked]
        if isinstance(e, WebApiLine)
        and e.method == "chat.postMessage"
        and e.args.get("blocks")
        and "which environment" in str(e.args.get("text"))
    )
    payload = json.loads((FIXTURES / "block_actions_help.json").read_text())
    button = next(
        el
        for block in question.args["blocks"]
        if block.get("type") == "actions"
        for el in block["elements"]
    )
    ts, thread = str(question.response["ts"]), str(question.args.get("thread_ts"))
    payload.update(
        token="[REDACTED]",
        response_url=RESPONSE_URL_PLACEHOLDER,
        trigger_id=f"{asked}.click.corpus",  # Slack's are unique: a repeat is a retry
        channel={"id": channel, "name": "corpus"},
        actions=[
            {
                **payload["actions"][0],
                "action_id": button["action_id"],
                "value": button["value"],
                "block_id": "q",
            }
        ],
    )
    payload["container"].update(message_ts=ts, thread_ts=thread, channel_id=channel)
    payload["message"].update(
        ts=ts, thread_ts=thread, text=question.args["text"], blocks=question.args["blocks"]
    )
    return payload


def clicks(recording: Recording) -> list[RequestLine]:
    """The clicks a file gets once its questions were recorded (``interactivity``: over HTTP;
    ``socket_mode``: an ``interactive`` envelope)."""
    if "click-1" in recording.effects:
        payload = click_payload(recording, "click-1", "C0CORPUS3")
        return [_form("click-2", 2.0, {"payload": json.dumps(payload)})]
    if "socket-4" in recording.effects:
        payload = click_payload(recording, "socket-4", "C0CORPUS6")
        return [_envelope("socket-5", 5.0, "interactive", payload)]
    return []


def slack_checks() -> list[RequestLine]:
    """Slack's own checks of the request URL: ``url_verification`` and ``ssl_check``."""
    verification = json.loads((FIXTURES / "url_verification.json").read_text())
    verification["token"] = "[REDACTED]"
    return [
        RequestLine(
            id="check-1",
            at=1.0,
            transport="http",
            http=HttpRequest(
                path="/slack/events", headers={"content-type": JSON}, body=json.dumps(verification)
            ),
        ),
        _form("check-2", 2.0, {"ssl_check": "1", "token": "[REDACTED]"}),
    ]


def direct_message() -> list[RequestLine]:
    """A direct message (``message.im``): no task; the bot says how to start one."""
    return [_event("im-1", 1.0, _fixture("message_im.json", channel="D0CORPUS5"), "Ev0CORPUS5A")]


def socket_mode() -> list[RequestLine]:
    """Socket Mode envelopes: an event, a command, Slack's redelivery of the event, and a
    question whose click (an ``interactive`` envelope) is added once it was posted."""
    channel, ts = "C0CORPUS6", "1700000600.000100"
    mention = {
        **_fixture(
            "app_mention.json",
            channel=channel,
            ts=ts,
            event_ts=ts,
            text=f"<@{BOT}> hello over the socket",
        ),
        "event_id": "Ev0CORPUS6A",
    }
    command = {
        "token": "[REDACTED]",
        "team_id": TEAM,
        "channel_id": channel,
        "user_id": OWNER,
        "command": "/effort",
        "text": "low",
        "response_url": RESPONSE_URL_PLACEHOLDER,
        "trigger_id": "socket-2.corpus",
        "api_app_id": "A0APP1",
    }

    ask = {
        **_fixture(
            "app_mention.json",
            channel=channel,
            ts="1700000600.000400",
            event_ts="1700000600.000400",
            text=f"<@{BOT}> {ASK}",
        ),
        "event_id": "Ev0CORPUS6B",
    }
    return [
        _envelope("socket-1", 1.0, "events_api", mention),
        _envelope("socket-2", 2.0, "slash_commands", command),
        _envelope("socket-3", 3.0, "events_api", mention, retry=1),
        _envelope("socket-4", 4.0, "events_api", ask),
    ]


def _envelope(
    rid: str, at: float, kind: str, payload: dict[str, Any], retry: int = 0
) -> RequestLine:
    return RequestLine(
        id=rid,
        at=at,
        transport="socket_mode",
        envelope=Envelope(
            type=kind,
            envelope_id=f"{rid}-envelope",
            payload=payload,
            accepts_response_payload=kind != "events_api",
            retry_attempt=retry,
            retry_reason="timeout" if retry else "",
        ),
    )


FILES: dict[str, Callable[[], list[RequestLine]]] = {
    "slash_commands": slash_commands,
    "mention_and_thread": mention_and_thread,
    "interactivity": interactivity,
    "slack_checks": slack_checks,
    "direct_message": direct_message,
    "socket_mode": socket_mode,
}


def _write(path: Path, requests: list[RequestLine], effects: Recording | None = None) -> None:
    header = Header(
        format=FORMAT,
        started_at="2026-12-04T00:00:00+00:00",
        bot_user_id=BOT,
        local=True,
        captures=("requests", "bot_web_api", "response_urls", "worker_web_api"),
    )
    recording = Recording(header, requests)
    if effects is not None:
        for request in requests:
            recording.effects[request.id] = effects.effects.get(request.id, [])
    path.write_text("".join(recording.lines()), encoding="utf-8")


def _update(path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "bot.replay", str(path), "--update"], check=True, cwd=ROOT
    )


def main() -> None:
    """Write every corpus file and take this release's behaviour as its expectations."""
    CORPUS.mkdir(parents=True, exist_ok=True)
    for name, build in FILES.items():
        path = CORPUS / f"{name}.jsonl"
        _write(path, build())
        _update(path)
        recorded = load(path)
        if added := clicks(recorded):
            _write(path, [*recorded.requests, *added], recorded)
            _update(path)
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
