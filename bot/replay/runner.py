"""Send a recording's requests to a bot in local mode, one exchange at a time, and watch it.

The bot under replay records too (``BOT_RECORD``) and serves its recording at the stand-in's
``/_local/recording``: what it did is read back in the very format it was recorded in, so
the two are compared the same way (:mod:`bot.replay.view`). Each request carries the
recorded request's id (``x-tiny-harness-replay``), which the replayed bot writes beside its
own; effects are linked back to the recorded ids through it.

An exchange is over when as much as the recording shows has happened (as many posts,
replies and calls) and nothing more came for ``quiet`` seconds, or after ``patience``
seconds in any case (a vetoed tool call never posts its answer: the diff says so).
A request the bot refuses before recording anything (too large, 413; a bad signature, 401)
is seen by the HTTP answer it got: the bot writes a request's line before it answers, so
an answer with no line means there will be none.
"""

from __future__ import annotations

import asyncio
import io
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import aiohttp

from bot.config import STANDIN_PATH
from bot.recording.format import (
    Answer,
    Recording,
    RecordingError,
    RequestLine,
    WebApiLine,
    header_of,
    line_of,
)
from bot.recording.recorder import RECORDED_HEADER
from bot.replay.send import outgoing
from bot.replay.view import POST_METHODS, button_elements, views
from bot.standin import RECORDING_PATH, RESPONSE_PATH

POLL_SECONDS: Final = 0.1
MAX_ANSWER_BYTES: Final = 1 << 20
"""Read of a direct answer at most: the bot's own are short (its refusals a few words)."""


@dataclass(frozen=True)
class Target:
    """A bot in local mode that records: where it listens and the secret it checks."""

    base: str
    """``http://127.0.0.1:3000``."""
    secret: str
    path: str = "/slack/events"
    bot_user_id: str = "UBOTLOCAL"


class Replay:
    """One replay of ``recording`` against ``target``.

    Args:
        patience: the longest one exchange is waited for.
        quiet: how long nothing new must come before an exchange counts as settled.
        timing: keep the recording's relative timing (at least as long between requests).
        progress: called with each exchange's title as it is sent.
    """

    def __init__(
        self,
        recording: Recording,
        target: Target,
        *,
        patience: float = 20.0,
        quiet: float = 1.0,
        timing: bool = False,
        progress: Callable[[RequestLine], None] | None = None,
    ) -> None:
        self.recording = recording
        self.target = target
        self.patience = patience
        self.quiet = quiet
        self.timing = timing
        self.progress = progress
        self.expected = views(recording)
        self.sent_at: dict[str, float] = {}
        """When each recorded request was sent (wall clock: the audit's records say when)."""
        self._seen = 0
        """Lines of the bot's recording read so far (those before the replay included)."""
        self._cursor = 0
        """Where in the bot's recording the next read starts (a byte offset)."""
        self._raw: Recording | None = None
        """What the bot recorded since the replay began, under the bot's own ids."""
        self._ours: dict[str, str] = {}
        """The bot's id of each replayed request -> the recorded id it replays."""
        self._last_change = time.monotonic()
        self._answers: dict[str, Answer] = {}
        """The HTTP answer to each request sent, by recorded id."""

    async def run(self) -> Recording:
        """Replay every request; everything observed, linked to the recorded ids."""
        async with aiohttp.ClientSession() as session:
            await self._start(session)
            replace = {self.recording.header.bot_user_id: await self._bot_user(session)}
            started = time.monotonic()
            for request in self.recording.requests:
                if self.timing:
                    wait = request.at - self.recording.requests[0].at - (time.monotonic() - started)
                    await asyncio.sleep(max(0.0, wait))
                if self.progress is not None:
                    self.progress(request)
                await self._send(session, request, replace)
                await self._settle(session, request)
                replace.update(self._ts_map(request))
        return self.observed(everything=True)

    async def _start(self, session: aiohttp.ClientSession) -> None:
        lines = await self._read(session)
        if lines:  # a running bot may have recorded before: not ours (its header is)
            self._raw = Recording(header_of(line_of(lines[0], self._source(1)), self._source()))
            self._seen = len(lines)

    def _source(self, number: int | None = None) -> str:
        where = f"{self.target.base}{RECORDING_PATH}"
        return where if number is None else f"{where}:{number}"

    async def _bot_user(self, session: aiohttp.ClientSession) -> str:
        """The replayed bot's user id, as its stand-in answers ``auth.test``."""
        try:
            async with session.post(
                f"{self.target.base}{STANDIN_PATH}auth.test", headers={RECORDED_HEADER: "replay"}
            ) as response:
                answer = await response.json()
        except (aiohttp.ClientError, ValueError):
            return self.target.bot_user_id
        found = answer.get("user_id") if isinstance(answer, dict) else None
        return found if isinstance(found, str) and found else self.target.bot_user_id

    async def _read(self, session: aiohttp.ClientSession) -> list[object]:
        """The lines the bot recorded since the last read."""
        url = f"{self.target.base}{RECORDING_PATH}?from={self._cursor}"
        try:
            async with session.get(url) as response:
                if response.status == 404:
                    raise RecordingError(
                        f"the bot at {self.target.base} does not record: start it with "
                        "BOT_LOCAL=1 and BOT_RECORD=FILE, or let bot.replay start one"
                    )
                if response.status != 200:
                    raise RecordingError(
                        f"{url} answered HTTP {response.status}: is this a "
                        "tiny-harness bot in local mode?"
                    )
                found = await response.json()
        except aiohttp.ClientError as error:
            raise RecordingError(
                f"cannot reach the bot at {self.target.base} "
                f"({type(error).__name__}); is it running?"
            ) from None
        self._cursor = int(found["next"])
        lines: list[object] = found["lines"]
        return lines

    async def _poll(self, session: aiohttp.ClientSession) -> None:
        """Read what the bot recorded since the last poll (a new file's header first)."""
        for value in await self._read(session):
            self._seen += 1
            line = line_of(value, self._source(self._seen))
            self._last_change = time.monotonic()
            if self._raw is None:
                self._raw = Recording(header_of(line, self._source(), self._seen))
                continue
            self._raw.add(line, self._source(self._seen))
            if isinstance(line, RequestLine) and line.replay_of is not None:
                self._ours[line.id] = line.replay_of

    async def _send(
        self, session: aiohttp.ClientSession, request: RequestLine, replace: dict[str, str]
    ) -> None:
        url = f"{self.target.base}{RESPONSE_PATH}{uuid.uuid4().hex}"
        message = outgoing(request, secret=self.target.secret, response_url=url, replace=replace)
        self.sent_at[request.id] = time.time()
        self._last_change = time.monotonic()
        try:
            async with session.post(
                self.target.base + self.target.path,
                data=io.BytesIO(message.body.encode()),  # large too: not read whole into the loop
                headers=message.headers,
            ) as answer:
                text = (await answer.content.read(MAX_ANSWER_BYTES)).decode("utf-8", "replace")
                self._answers[request.id] = Answer(
                    status=answer.status, body=text, content_type=answer.content_type
                )
        except aiohttp.ClientError as error:
            raise RecordingError(
                f"the bot at {self.target.base} did not answer "
                f"{request.id} ({type(error).__name__})"
            ) from None

    async def _settle(self, session: aiohttp.ClientSession, request: RequestLine) -> None:
        want = self.expected.get(request.id, {})
        deadline = time.monotonic() + self.patience
        while time.monotonic() < deadline:
            await asyncio.sleep(POLL_SECONDS)
            await self._poll(session)
            have = views(self.observed(only=request.id)).get(request.id)
            enough = (
                have is not None
                and have["response"].get("status") is not None
                and all(
                    len(have[key]) >= len(want.get(key, []))
                    for key in ("posts", "replies", "calls")
                )
            )
            if enough and time.monotonic() - self._last_change >= self.quiet:
                return

    def observed(self, *, everything: bool = False, only: str | None = None) -> Recording:
        """What the replayed bot did, its ids replaced by the recorded ones (``only`` one
        recorded request's exchange); without the worker's calls when the recording has none of
        them (made against Slack), unless ``everything``."""
        out = Recording(self.recording.header)
        if self._raw is not None:
            out.header = self._raw.header.model_copy(
                update={"bot_user_id": self.recording.header.bot_user_id}
            )
        raw = self._raw or Recording(out.header)
        workers = everything or "worker_web_api" in self.recording.header.captures
        for line in raw.requests:
            if line.replay_of is not None and only in (None, line.replay_of):
                out.requests.append(line.model_copy(update={"id": line.replay_of}))
        out.requests += self._unrecorded(only, {line.id for line in out.requests})
        for theirs, linked in self._ours.items():
            if only in (None, linked):
                out.effects[linked] += [
                    e.model_copy(update={"request": linked})
                    for e in raw.effects[theirs]
                    if workers or not (isinstance(e, WebApiLine) and e.origin == "worker")
                ]
        return out

    def _unrecorded(self, only: str | None, recorded: set[str]) -> list[RequestLine]:
        """The requests the bot answered without recording them, seen by their HTTP answer."""
        return [
            request.model_copy(update={"response": self._answers[request.id]})
            for request in self.recording.requests
            if request.id in self._answers
            and request.id not in recorded
            and only in (None, request.id)
        ]

    def _ts_map(self, request: RequestLine) -> dict[str, str]:
        """Recorded -> replayed ts and button action ids of the posts this exchange made (paired
        by where and what they say), so a later click on one names the replayed message and
        button (an action id may carry a number the task counted, which timing can change)."""
        mine = _posts(self.recording, request.id)
        theirs = _posts(self.observed(only=request.id), request.id)
        pairs: dict[str, str] = {}
        for key, recorded in mine.items():
            for old, new in zip(recorded, theirs.get(key, []), strict=False):
                pairs.update(zip(old, new, strict=False))
        return pairs


def _posts(recording: Recording, request_id: str) -> dict[tuple[str, str, str], list[list[str]]]:
    """``(method, channel, first words)`` -> each such post's ts and its buttons' action ids."""
    found: defaultdict[tuple[str, str, str], list[list[str]]] = defaultdict(list)
    for effect in sorted(recording.effects.get(request_id, []), key=lambda e: e.at):
        if isinstance(effect, WebApiLine) and effect.method in POST_METHODS:
            ts = str(effect.response.get("ts") or "")
            words = " ".join(str(effect.args.get("text") or "").split()[:3])
            if ts:
                blocks = effect.args.get("blocks")
                ids = [str(b.get("action_id", "")) for b in button_elements(blocks)]
                found[(effect.method, str(effect.args.get("channel")), words)].append([ts, *ids])
    return found
