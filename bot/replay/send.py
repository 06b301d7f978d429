"""A recorded request made sendable again: to this bot, with a fresh response URL, re-signed.

What changes between the recording and the replay, and nothing else:

- the ``response_url`` (recorded only as a placeholder): the local stand-in's, so the
  replay reads what the bot posts to it;
- the bot's user id in mentions: the recording's becomes the replayed bot's;
- ``ts`` values Slack gave the bot's earlier posts (a click names the message it was on):
  the ``ts`` the same posts got in this replay;
- a Socket Mode envelope becomes the HTTP request Slack would have sent instead (the
  bot answers both the same way; a local bot has no websocket);
- the signature: made now, with the replayed bot's signing secret. Of the recorded headers
  only those a recording keeps (:data:`~bot.recording.format.KEPT_HEADERS`) are sent: a
  signature or timestamp left in a file by hand would override the fresh one (a 401).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode

from bot.envelope import content_type_of, reads_as_json
from bot.recording.format import KEPT_HEADERS, REPLAY_HEADER, RequestLine
from bot.say.as_slack import signed_headers

JSON: Final = "application/json"
FORM: Final = "application/x-www-form-urlencoded"


@dataclass(frozen=True)
class Outgoing:
    """One request ready to POST."""

    body: str
    headers: dict[str, str]


def outgoing(
    request: RequestLine, *, secret: str, response_url: str, replace: Mapping[str, str]
) -> Outgoing:
    """``request`` as this replay sends it.

    Args:
        secret: the replayed bot's signing secret.
        response_url: the response URL this request gets.
        replace: recorded value -> replayed value (bot user id, ``ts`` of earlier posts).
    """
    if request.envelope is not None:
        body, content_type = _from_envelope(request.envelope.type, request.envelope.payload)
        kept: dict[str, str] = {}
        if request.envelope.retry_attempt:
            kept["x-slack-retry-num"] = str(request.envelope.retry_attempt)
            kept["x-slack-retry-reason"] = request.envelope.retry_reason or ""
    elif request.http is not None:
        body = request.http.body
        recorded = {k.lower(): v for k, v in request.http.headers.items()}
        kept = {k: v for k, v in recorded.items() if k in KEPT_HEADERS and k != "content-type"}
        content_type = recorded.get("content-type", JSON)
    else:
        raise ValueError(f"request {request.id} has neither an HTTP body nor an envelope")
    for old, new in replace.items():
        if old and old != new:
            body = body.replace(old, new)
    if not reads_as_json(body, content_type_of({"content-type": content_type})):
        body = _with_response_url(body, response_url)  # a form, whatever its label says
    headers = signed_headers(secret, body, content_type)
    return Outgoing(body, {**kept, **headers, REPLAY_HEADER: request.id})


def _from_envelope(kind: str, payload: dict[str, Any]) -> tuple[str, str]:
    """The HTTP body Slack sends for what it put in a Socket Mode envelope of ``kind``."""
    if kind == "slash_commands":
        return urlencode({k: str(v) for k, v in payload.items()}), FORM
    if kind == "interactive":
        return urlencode({"payload": json.dumps(payload)}), FORM
    return json.dumps(payload), JSON


def _with_response_url(body: str, url: str) -> str:
    """A form body whose response URLs (a command's, or those inside ``payload``) are ``url``."""
    fields = parse_qsl(body, keep_blank_values=True)
    out = []
    for key, value in fields:
        if key == "response_url":
            value = url
        elif key == "payload":
            try:
                value = json.dumps(_set_urls(json.loads(value), url))
            except ValueError:
                pass
        out.append((key, value))
    return urlencode(out)


def _set_urls(value: Any, url: str) -> Any:  # noqa: ANN401  # any JSON value
    if isinstance(value, dict):
        return {
            k: url if k == "response_url" and isinstance(v, str) else _set_urls(v, url)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_set_urls(item, url) for item in value]
    return value
