"""``BOT_RECORD=FILE``: the bot appends what Slack sends it and what it sends back.

One :class:`Recorder` per bot process, given to the places traffic passes through:

- the HTTP gate (:mod:`bot.gate`) and the Socket Mode handler (:mod:`bot.socket_mode`)
  open an exchange per request that passed the signature check (a forged request is not
  Slack's traffic, and replay would sign it) and close it with the answer;
- :class:`RecordingWebClient`, the bot's Web API client, records each call with Slack's
  answer, linked to the request being handled (a context variable, so a listener's
  background task still knows its request);
- :class:`RecordingRespond` records each ``response_url`` post;
- in local mode the stand-in (:mod:`bot.standin`) records the worker's calls, linked to
  the latest request about the same channel (the worker knows nothing of requests).

Everything passes :class:`~bot.recording.scrub.Scrubber` first. Each replica writes its own
file: a recording is one bot's view, appended line by line and flushed, so a crash loses at
most the line being written.
"""

from __future__ import annotations

import contextvars
import datetime
import hashlib
import itertools
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Final, Literal, final

from pydantic import BaseModel
from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse
from slack_sdk.webhook.webhook_response import WebhookResponse

from bot.envelope import content_type_of
from bot.recording.format import (
    KEPT_HEADERS,
    REPLAY_HEADER,
    Answer,
    Capture,
    Envelope,
    Header,
    HttpRequest,
    RecordingError,
    RequestLine,
    ResponseUrlLine,
    WebApiLine,
    dump,
)
from bot.recording.scrub import Scrubber
from bot.recording.settings import carried, not_carried
from harness.config import Settings

log = logging.getLogger(__name__)

UNRECORDED_METHOD: Final = "apps.connections.open"
RECORDED_HEADER: Final = "x-tiny-harness-recorded"
"""Set on the bot's own Web API calls: the local stand-in does not record them a second time."""
_CURRENT: Final[contextvars.ContextVar[str | None]] = contextvars.ContextVar(
    "recorded_request", default=None
)


@final
class Exchange:
    """One request being handled; :meth:`answer` writes it with the bot's answer."""

    def __init__(
        self, recorder: Recorder, line: RequestLine, token: contextvars.Token[str | None]
    ) -> None:
        self.recorder = recorder
        self.line = line
        self._token = token

    @property
    def id(self) -> str:
        """The request's id in the file."""
        return self.line.id

    def answer(self, status: int, body: str = "", content_type: str = "") -> None:
        """Write the request with its answer; effects after this still link to it."""
        scrubbed = self.recorder.scrubber.answer_body(body, content_type) if body else ""
        answer = Answer(status=status, body=scrubbed, content_type=content_type)
        self.recorder.write(self.line.model_copy(update={"response": answer}))
        _CURRENT.reset(self._token)


@final
class Recorder:
    """Appends one bot's traffic to a recording file.

    Args:
        path: the file; appended to, created with its header when new or empty.
        scrubber: what every text passes through first.
        bot_user_id: the bot's user id, for the header, until Slack names it
            (:meth:`learn_bot_user`).
        local: local mode.
        worker_posts: the worker's calls reach the stand-in, which records them (local mode
            with the Web API at the bot's own stand-in, :attr:`bot.config.BotSettings.
            web_api_is_standin`); the header claims them only then.
        settings: the bot's ``HARNESS_*`` settings, whose answer-shaping ones the header
            carries (:mod:`bot.recording.settings`); ``None``: the header names none.
    """

    def __init__(
        self,
        path: Path,
        scrubber: Scrubber,
        *,
        bot_user_id: str,
        local: bool,
        worker_posts: bool,
        settings: Settings | None = None,
    ) -> None:
        self.path = path
        self.scrubber = scrubber
        self.local = local
        self.worker_posts = worker_posts
        self.settings = settings
        self._start = time.monotonic()
        self._prefix = hashlib.sha256(f"{time.time_ns()}{id(self)}".encode()).hexdigest()[:6]
        self._ids = itertools.count(1)
        self._latest: dict[str, str] = {}
        """A channel (and ``""``, any) -> the latest request about it."""
        self.bot_user_id = bot_user_id
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._header_due = not path.exists() or path.stat().st_size == 0
            self._file: IO[str] = path.open("a", encoding="utf-8")
        except OSError as error:
            raise RecordingError(
                f"BOT_RECORD={path}: cannot append to it ({error.strerror or error})"
            ) from None
        log.info(
            "recording Slack traffic to %s (secrets redacted%s)",
            path,
            ", ids pseudonymised" if scrubber.key is not None else "",
        )

    def learn_bot_user(self, bot_user_id: str) -> None:
        """The bot's user id as Slack gave it (``auth.test``), for a header not written yet."""
        self.bot_user_id = bot_user_id

    def _header(self) -> Header:
        captures: tuple[Capture, ...] = ("requests", "bot_web_api", "response_urls")
        return Header(
            started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            bot_user_id=self.scrubber.text(self.bot_user_id),
            local=self.local,
            pseudonymised=self.scrubber.key is not None,
            captures=(*captures, "worker_web_api") if self.worker_posts else captures,
            settings=carried(self.settings, self.scrubber.redactor) if self.settings else None,
            unrecorded=not_carried(self.settings) if self.settings else (),
        )

    def write(self, line: BaseModel) -> None:
        """Append one line and flush it; the header first, when the file is new.

        The header waits for the first line so that it names the bot's user id as Slack
        reported it to the first request (:meth:`learn_bot_user`), not a configured default.
        """
        try:
            if self._header_due:
                self._file.write(dump(self._header()))
                self._header_due = False
            self._file.write(dump(line))
            self._file.flush()
        except (OSError, ValueError) as error:  # a full disk must not stop the bot answering
            log.warning(
                "recording to %s failed (%s); the bot goes on", self.path, type(error).__name__
            )

    def read_from(self, offset: int) -> tuple[list[str], int]:
        """The whole lines written from byte ``offset`` on, and the offset after them: a reader
        polling for what is new reads only that, however long the file has grown."""
        with self.path.open("rb") as file:
            file.seek(offset)
            chunk = file.read()
        whole = chunk[: chunk.rfind(b"\n") + 1]  # a line being written waits for the next read
        return whole.decode("utf-8").splitlines(), offset + len(whole)

    def close(self) -> None:
        """Close the file."""
        self._file.close()

    def _now(self) -> float:
        return round(time.monotonic() - self._start, 3)

    def _open(
        self,
        transport: Literal["http", "socket_mode"],
        body: Mapping[str, Any],
        replay_of: str | None,
        **request: Any,  # noqa: ANN401  # the RequestLine fields
    ) -> Exchange:
        request_id = f"{self._prefix}-{next(self._ids)}"
        line = RequestLine(
            id=request_id, at=self._now(), transport=transport, replay_of=replay_of, **request
        )
        self._latest[_channel(body)] = self._latest[""] = request_id
        return Exchange(self, line, _CURRENT.set(request_id))

    def http(
        self,
        *,
        path: str,
        query: str,
        headers: Mapping[str, str],
        raw: bytes,
        body: Mapping[str, Any] | None,
    ) -> Exchange:
        """Open the exchange of a signed HTTP request: ``raw`` as it arrived, ``body`` as the
        gate parsed it, ``None`` when it could not (then the body is written as its length
        and hash only, :meth:`~bot.recording.scrub.Scrubber.request_body`)."""
        kept = {k.lower(): v for k, v in headers.items() if k.lower() in KEPT_HEADERS}
        request = HttpRequest(
            path=path,
            query=self.scrubber.text(query),
            headers=kept,
            body=self.scrubber.request_body(raw, content_type_of(kept), readable=body is not None),
        )
        replay_of = next((v for k, v in headers.items() if k.lower() == REPLAY_HEADER), None)
        return self._open("http", body or {}, replay_of, http=request)

    def envelope(
        self,
        *,
        type: str,
        envelope_id: str,
        payload: Mapping[str, Any],
        accepts_response_payload: bool,
        retry_attempt: int | None,
        retry_reason: str | None,
    ) -> Exchange:
        """Open the exchange of a Socket Mode envelope."""
        envelope = Envelope(
            type=type,
            envelope_id=envelope_id,
            payload=self.scrubber.value(dict(payload)),
            accepts_response_payload=accepts_response_payload,
            retry_attempt=retry_attempt,
            retry_reason=retry_reason,
        )
        return self._open("socket_mode", payload, None, envelope=envelope)

    def web_api(
        self,
        method: str,
        args: Mapping[str, Any],
        response: Mapping[str, Any],
        origin: Literal["bot", "worker"],
    ) -> None:
        """Record one Web API call; the bot's link to its request, the worker's to the latest
        request about its channel (a channel's task answers what it was last asked there: a
        mention in a new thread is answered in the task's own thread), else the latest of all.

        ``apps.connections.open`` is not recorded: it is the Socket Mode client's own call, made
        with the app's client before any request (its line wrote the header with the default
        bot id), and Slack's answer is a websocket URL whose ticket lets its holder connect.
        """
        if method == UNRECORDED_METHOD:
            return
        if origin == "bot":
            request = _CURRENT.get()
        else:
            channel = str(args.get("channel") or args.get("channel_id") or "")
            request = self._latest.get(channel) or self._latest.get("")
        self.write(
            WebApiLine(
                request=request,
                at=self._now(),
                origin=origin,
                method=method,
                args=self.scrubber.value(dict(args)),
                response=self.scrubber.value(dict(response)),
            )
        )

    def response_url(self, payload: Mapping[str, Any], status: int) -> None:
        """Record one post to the current request's ``response_url``."""
        self.write(
            ResponseUrlLine(
                request=_CURRENT.get(),
                at=self._now(),
                status=status,
                payload=self.scrubber.value(dict(payload)),
            )
        )


def _channel(body: Mapping[str, Any]) -> str:
    """The channel a request is about, as far as its body says."""
    event = body.get("event")
    if isinstance(event, dict):
        return str(event.get("channel") or "")
    channel = body.get("channel")
    if isinstance(channel, dict):  # interactivity
        return str(channel.get("id") or "")
    return str(body.get("channel_id") or "")


@final
class RecordingWebClient(AsyncWebClient):
    """The bot's Web API client, recording each call and Slack's answer."""

    def __init__(self, recorder: Recorder, **kwargs: Any) -> None:  # noqa: ANN401  # AsyncWebClient's keywords
        super().__init__(**kwargs)
        self.recorder = recorder

    async def api_call(
        self,
        api_method: str,
        *,
        headers: dict[str, str] | None = None,
        **kwargs: Any,  # noqa: ANN401  # AsyncWebClient.api_call's keywords, passed on
    ) -> AsyncSlackResponse:
        """Call, then record the method, its arguments and the answer (an error too)."""
        marked = {**(headers or {}), RECORDED_HEADER: "bot"}
        args = {
            **(kwargs.get("params") or {}),
            **(kwargs.get("data") or {}),
            **(kwargs.get("json") or {}),
        }
        try:
            response = await super().api_call(api_method, headers=marked, **kwargs)
        except Exception as error:
            answer = getattr(error, "response", None)
            data = (
                answer.data
                if answer is not None and isinstance(answer.data, dict)
                else {"ok": False, "error": type(error).__name__}
            )
            self.recorder.web_api(api_method, args, data, "bot")
            raise
        data = response.data if isinstance(response.data, dict) else {}
        self.recorder.web_api(api_method, args, data, "bot")
        return response


def recording_copy(client: AsyncWebClient, recorder: Recorder) -> RecordingWebClient:
    """A :class:`RecordingWebClient` configured as ``client`` (bolt's per-request client)."""
    return RecordingWebClient(
        recorder,
        token=client.token,
        base_url=client.base_url,
        timeout=client.timeout,
        ssl=client.ssl,
        proxy=client.proxy,
        session=client.session,
        trust_env_in_session=client.trust_env_in_session,
        headers=client.headers,
        team_id=client.default_params.get("team_id"),
        logger=client.logger,
        retry_handlers=client.retry_handlers,
    )


@final
class RecordingRespond(AsyncRespond):
    """``respond`` that records each post to the request's ``response_url``."""

    def __init__(self, inner: AsyncRespond, recorder: Recorder) -> None:
        super().__init__(response_url=inner.response_url)
        self.inner = inner
        self.recorder = recorder

    async def __call__(self, *args: Any, **kwargs: Any) -> WebhookResponse:  # noqa: ANN401  # bolt's respond keywords
        """Post through the wrapped ``respond``; record what was posted and the status."""
        response = await self.inner(*args, **kwargs)
        payload = {k: v for k, v in kwargs.items() if v is not None}
        if args:
            payload["text"] = args[0]
        self.recorder.response_url(payload, response.status_code)
        return response
