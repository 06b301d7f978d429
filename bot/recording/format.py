"""The recording format: one JSON object per line, a header first, then exchanges as they happen.

``BOT_RECORD=FILE`` writes it (:mod:`bot.recording.recorder`), ``python -m bot.replay FILE``
reads it, and ``tests/fixtures/slack/corpus/`` holds one recording per request type the bot
handles; ``docs/recording.md`` documents it for people who write or edit one by hand.

Lines, linked by the ``id`` of the request that caused them:

- ``recording``: the header (format version, when, the bot's user id, what was captured,
  the settings that shape answers).
- ``request``: what Slack sent (HTTP: path, the headers that matter, the body in the encoding
  it arrived in, or the length and hash of one the bot could not read; Socket Mode: the
  envelope) and what the bot answered (HTTP status and body, or the ack).
- ``web_api``: a Web API call (method, arguments, Slack's answer), by the bot or, when the
  bot runs the local stand-in, by the worker.
- ``response_url``: a post to a request's ``response_url`` (the late reply of a command).

Effects are written when they happen, so one may precede its request's line (the bot can
post before it answers). Signatures are never written and secrets are redacted before
a byte reaches the file (:mod:`bot.recording.scrub`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final, Literal
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from bot.envelope import content_type_of, reads_as_json
from harness.errors import HarnessError

FORMAT: Final = 1
"""Bumped on a change an older reader would misread; readers refuse a newer one by name."""
REPLAY_HEADER: Final = "x-tiny-harness-replay"
"""Sent by ``bot.replay`` with each request: the id of the recorded request it replays."""
KEPT_HEADERS: Final = ("content-type", "x-slack-retry-num", "x-slack-retry-reason")
"""The request headers a recording keeps: those that change what the bot does."""

Capture = Literal["requests", "bot_web_api", "response_urls", "worker_web_api"]


class RecordingError(HarnessError):
    """A recording file that cannot be read or written; the message names the file and line."""


class _Line(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Header(_Line):
    """The first line: what the file is and how it was made."""

    type: Literal["recording"] = "recording"
    format: int = FORMAT
    started_at: str
    """When recording began, ISO 8601 UTC."""
    bot_user_id: str
    """The bot's user id (pseudonymised with the rest): replay puts its own in its place."""
    local: bool
    """Recorded in local mode (against the stand-in, not Slack). Whether the worker's posts are
    in the file is what ``captures`` says (``worker_web_api``): not when the API URL was moved."""
    pseudonymised: bool = False
    captures: tuple[Capture, ...]
    settings: dict[str, Any] | None = None
    """``HARNESS_*`` variable -> value of each setting that shapes answers, as the recording bot
    read it (:mod:`bot.recording.settings`); ``None`` in a file of an older release."""
    unrecorded: tuple[str, ...] = ()
    """The variables that shape answers too, set for the recording bot, whose values are not
    in the file (credentials, URLs, the hooks file): a replay uses its own and says so."""


class HttpRequest(BaseModel):
    """A request Slack sent over HTTP (its signature dropped)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    path: str
    query: str = ""
    headers: dict[str, str] = Field(default_factory=dict)
    body: str


class Envelope(BaseModel):
    """A Socket Mode envelope as Slack sent it."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    type: str
    envelope_id: str
    payload: dict[str, Any]
    accepts_response_payload: bool = False
    retry_attempt: int | None = None
    retry_reason: str | None = None


class Answer(BaseModel):
    """What the bot answered: an HTTP status and body, or a Socket Mode ack (status 200 and
    the ack's payload as JSON, empty for a bare ack)."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    status: int
    body: str = ""
    content_type: str = ""


class RequestLine(_Line):
    """One request from Slack and the bot's answer to it."""

    type: Literal["request"] = "request"
    id: str
    at: float
    """Seconds since the recording started: relative timing for ``--timing``."""
    transport: Literal["http", "socket_mode"]
    http: HttpRequest | None = None
    envelope: Envelope | None = None
    response: Answer | None = None
    replay_of: str | None = None
    """Set when ``bot.replay`` sent it: the recorded request's id."""

    def payload(self) -> dict[str, Any]:
        """What Slack sent, as bolt reads it: the envelope's payload, a JSON body, or a form
        body's fields (an interactivity ``payload`` field parsed); ``{}`` when unreadable."""
        if self.envelope is not None:
            return self.envelope.payload
        if self.http is None:
            return {}
        if reads_as_json(self.http.body, content_type_of(self.http.headers)):
            try:
                body = json.loads(self.http.body)
            except ValueError:
                return {}
            return body if isinstance(body, dict) else {}
        fields = dict(parse_qsl(self.http.body, keep_blank_values=True))
        if "payload" in fields:
            try:
                inner = json.loads(fields["payload"])
            except ValueError:
                return fields
            return inner if isinstance(inner, dict) else fields
        return fields


class WebApiLine(_Line):
    """One Web API call and Slack's answer."""

    type: Literal["web_api"] = "web_api"
    request: str | None = None
    """The request it answers; none when it answers no request of Slack's (a call at start)."""
    at: float
    origin: Literal["bot", "worker"]
    method: str
    args: dict[str, Any]
    response: dict[str, Any] = Field(default_factory=dict)


class ResponseUrlLine(_Line):
    """One post to a request's ``response_url``."""

    type: Literal["response_url"] = "response_url"
    request: str | None = None
    at: float
    payload: dict[str, Any]
    status: int = 200


Effect = WebApiLine | ResponseUrlLine
Line = Annotated[Header | RequestLine | WebApiLine | ResponseUrlLine, Field(discriminator="type")]
_LINE: Final[TypeAdapter[Line]] = TypeAdapter(Line)


def dump(line: BaseModel) -> str:
    """One line of the file, newline included."""
    return line.model_dump_json(exclude_none=True) + "\n"


@dataclass
class Recording:
    """A recording read whole: the header, the requests in order, each one's effects."""

    header: Header
    requests: list[RequestLine] = field(default_factory=list)
    effects: defaultdict[str, list[Effect]] = field(default_factory=lambda: defaultdict(list))
    """Request id -> its effects in the order written; effects linked to no request under ``""``."""

    def add(self, line: Line, where: str) -> None:
        """Add one line read after the header (``where`` names it in an error).

        Raises:
            RecordingError: it is a second header.
        """
        if isinstance(line, Header):
            raise RecordingError(f"{where}: a second header")
        if isinstance(line, RequestLine):
            self.requests.append(line)
        else:
            self.effects[line.request or ""].append(line)

    def lines(self) -> list[str]:
        """The recording as lines again: header, then each request followed by its effects."""
        out = [dump(self.header)]
        for request in self.requests:
            out.append(dump(request))
            out += [dump(effect) for effect in self.effects.get(request.id, [])]
        return out


def parse_lines(lines: list[str], source: str) -> Recording:
    """A recording from its lines.

    Raises:
        RecordingError: no header first, a newer format, or a line that is not one of the
            kinds above; the message names ``source`` and the line number.
    """
    recording: Recording | None = None
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except ValueError as error:
            raise RecordingError(f"{source}:{number}: not JSON ({error})") from None
        line = line_of(value, f"{source}:{number}")
        if recording is None:
            recording = Recording(header_of(line, source, number))
        else:
            recording.add(line, f"{source}:{number}")
    if recording is None:
        raise RecordingError(f"{source}: empty, not a recording")
    return recording


def line_of(value: object, where: str) -> Line:
    """One line from its JSON value.

    Raises:
        RecordingError: it is none of the kinds above (``where`` and why named).
    """
    try:
        return _LINE.validate_python(value)
    except ValidationError as error:
        raise RecordingError(f"{where}: not a recording line ({_why(error)})") from None


def header_of(line: Line, source: str, number: int = 1) -> Header:
    """``line`` as the first line of ``source``: a header of a format this release reads.

    Raises:
        RecordingError: it is not a header, or its format is newer.
    """
    if not isinstance(line, Header):
        raise RecordingError(
            f'{source}:{number}: the first line must be the {{"type": "recording", ...}} header'
        )
    if line.format > FORMAT:
        raise RecordingError(
            f"{source}: format {line.format} is newer than this "
            f"release reads ({FORMAT}); upgrade tiny-harness"
        )
    return line


def _why(error: ValidationError) -> str:
    """The first problem of a line, as a person reads it: ``id: field required``."""
    first = error.errors()[0]
    if first["type"] in ("union_tag_invalid", "union_tag_not_found"):
        return '"type" must be one of "recording", "request", "web_api", "response_url"'
    where = ".".join(str(part) for part in first["loc"][1:]) or "the line"
    return f"{where}: {first['msg'].lower()}"


def load(path: Path) -> Recording:
    """Read the recording at ``path``.

    Raises:
        RecordingError: it cannot be read or is not a recording (file and line named).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RecordingError(
            f"cannot read {path}: {error.__class__.__name__}: "
            f"{getattr(error, 'strerror', None) or error}"
        ) from None
    return parse_lines(text.splitlines(), str(path))
