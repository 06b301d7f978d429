"""The Slack Web API transport behind ``channel.sent``: posting once, at most.

:class:`SlackChannel` posts with ``chat.postMessage`` (or ``chat.postEphemeral`` when
the message names a ``user``: only that person sees it) through the worker's
:class:`~harness.providers.HttpClient`, at the base URL in Settings: Slack itself, or
the bot's local stand-in in local mode. The default bodies of ``channel.sent`` and
``channel.received`` are in :mod:`harness.bodies.channel`. Help-request buttons are
built here too (:func:`help_blocks`), because the action ids are the contract between
the worker's post and the bot's click handler.
"""

from __future__ import annotations

import json
from typing import Any, Final, final

from harness import replies
from harness.channels.slack_limits import MAX_TEXT
from harness.domain import ChannelMessage, HelpRequest
from harness.errors import ServiceError
from harness.http import HttpClientError
from harness.providers import Clock, HttpClient, SystemClock

HELP_ACTION_PREFIX: Final = "help:"
"""Action id of a help button: ``help:<request id>:<option index>`` (Slack caps ids at 255)."""

MAX_REPLY_BYTES: Final = 64 * 1024

POST_EVENT_TYPE: Final = "tiny_harness_post"
"""Slack message metadata type of every post, its payload ``{"key": <idempotency key>}``."""

LOOKBACK_SECONDS: Final = 3600.0
"""How far back a possibly repeated post is looked for: longer than any retry's wait."""

LOOKUP_PAGES: Final = 5
"""Pages of 200 messages searched before posting anyway (a very busy thread)."""

REPLY_HINT: Final = replies.REPLY_HINT
"""Shown with a question that has no buttons: the task takes the next reply as the answer."""


class ChannelError(ServiceError):
    """Slack (or the stand-in) did not accept a post; the operation fails and is retried.

    ``code`` is Slack's own error word (``unknown_method``, ``not_allowed_token_type``,
    ``ratelimited``), ``""`` when Slack was not reached or answered no JSON.
    """

    def __init__(self, message: str, *, code: str = "") -> None:
        super().__init__(message)
        self.code = code


def question_text(request: HelpRequest) -> str:
    """The text of a posted question; one without buttons says how to answer it.

    Without the hint a question with no options reads like a remark, and nobody
    knows the task is waiting for them.
    """
    return request.question if request.options else f"{request.question} ({REPLY_HINT})"


def help_blocks(request: HelpRequest) -> tuple[dict[str, Any], ...]:
    """Slack blocks for a help request: the question and one button per option.

    A question without options gets no buttons and a line saying to reply in the
    thread (the task takes a decider's reply as the answer). The button's ``value``
    is the option itself, so the click payload says what was chosen.
    """
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": request.question}}
    ]
    if not request.options:
        blocks.append(
            {"type": "context", "elements": [{"type": "mrkdwn", "text": f"_{REPLY_HINT}_"}]}
        )
    else:
        blocks.append(
            {
                "type": "actions",
                "block_id": f"help-{request.request_id}"[:255],
                "elements": [
                    {
                        "type": "button",
                        "text": {"type": "plain_text", "text": option[:75]},
                        "action_id": f"{HELP_ACTION_PREFIX}{request.request_id}:{index}"[:255],
                        "value": option[:2000],
                    }
                    for index, option in enumerate(request.options)
                ],
            }
        )
    return tuple(blocks)


def closed_blocks(request: HelpRequest, note: str) -> tuple[dict[str, Any], ...]:
    """Slack blocks for a question that closed: the question and ``note`` (how it closed,
    worded by :mod:`harness.replies`), with no button left to click."""
    return (
        {"type": "section", "text": {"type": "mrkdwn", "text": request.question}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": note}]},
    )


@final
class SlackChannel:
    """Posts to Slack.

    Args:
        http: the worker's HTTP client.
        api_url: the Web API base URL, ending in ``/`` (``https://slack.com/api/``).
        token: the bot token sent as a bearer header.
        timeout: seconds one post may take.
    """

    def __init__(
        self,
        *,
        http: HttpClient,
        api_url: str,
        token: str,
        timeout: float = 10.0,
        clock: Clock | None = None,
    ) -> None:
        self.http = http
        self.api_url = api_url if api_url.endswith("/") else api_url + "/"
        self.token = token
        self.timeout = timeout
        self.clock: Clock = clock or SystemClock()

    async def post(
        self, message: ChannelMessage, *, idempotency_key: str, maybe_posted: bool
    ) -> str:
        """Post ``message`` at most once; the ``ts`` Slack gave it.

        Every post carries the operation's idempotency key in Slack's message
        metadata. An attempt that may have posted already (a retry, or the same
        attempt run again after its worker was lost mid-post) first looks for its key
        in the thread and, finding it, returns that message's ``ts`` instead of posting
        again (issue 10). Ephemeral messages (``message.user`` set: only that person
        sees them) cannot be looked up (Slack keeps none), so one may be shown twice;
        they are seen by one person and change nothing.

        Args:
            message: what to post, and where.
            idempotency_key: the operation's key, sent in the post's metadata.
            maybe_posted: whether an earlier run of this operation may have posted.

        Raises:
            ChannelError: the API could not be reached or answered ``ok: false``.
        """
        text = replies.fitted(message.text, MAX_TEXT)  # Slack refuses more (issue 26)
        if message.user:
            args: dict[str, Any] = {"channel": message.channel, "text": text, "user": message.user}
            method = "chat.postEphemeral"
        else:
            args = {
                "channel": message.channel,
                "text": text,
                "metadata": {
                    "event_type": POST_EVENT_TYPE,
                    "event_payload": {"key": idempotency_key},
                },
            }
            method = "chat.postMessage"
        maybe_posted = maybe_posted and method == "chat.postMessage" and bool(idempotency_key)
        ts = await self._posted(message, idempotency_key) if maybe_posted else ""
        if not ts:
            if message.thread:
                args["thread_ts"] = message.thread
            if message.blocks:
                args["blocks"] = list(message.blocks)
            answer = await self._call(method, args)
            ts = str(answer.get("ts") or answer.get("message_ts") or "")
        return ts

    async def update(self, message: ChannelMessage) -> None:
        """Replace the text and blocks of the message at ``message.ts`` (``chat.update``).

        Raises:
            ChannelError: as :meth:`post`.
        """
        text = replies.fitted(message.text, MAX_TEXT)
        args: dict[str, Any] = {"channel": message.channel, "ts": message.ts, "text": text}
        args["blocks"] = list(message.blocks)
        await self.call("chat.update", args)

    async def start_stream(
        self,
        message: ChannelMessage,
        *,
        chunks: tuple[dict[str, Any], ...],
        team: str,
        recipient: str,
    ) -> str:
        """Start a streamed reply in ``message.thread`` (``chat.startStream``); its ``ts``.

        Slack shows task updates as a plan block (``task_display_mode=plan``). Streaming to
        a channel needs the person and workspace it is for (``recipient``, ``team``).

        Raises:
            ChannelError: as :meth:`post`; ``code`` says whether the workspace offers streams.
        """
        args: dict[str, Any] = {
            "channel": message.channel,
            "thread_ts": message.thread,
            "chunks": list(chunks),
            "task_display_mode": "plan",
            "recipient_team_id": team,
            "recipient_user_id": recipient,
        }
        answer = await self.call("chat.startStream", args)
        return str(answer.get("ts") or "")

    async def append_stream(
        self, channel: str, ts: str, chunks: tuple[dict[str, Any], ...]
    ) -> None:
        """Append chunks to the streamed message ``ts`` (``chat.appendStream``).

        Raises:
            ChannelError: as :meth:`post` (``message_not_in_streaming_state`` once stopped).
        """
        await self.call("chat.appendStream", {"channel": channel, "ts": ts, "chunks": list(chunks)})

    async def stop_stream(
        self, message: ChannelMessage, *, chunks: tuple[dict[str, Any], ...], key: str = ""
    ) -> None:
        """Stop the streamed message ``message.ts``: its last chunks and text (``chat.stopStream``).

        Raises:
            ChannelError: as :meth:`post`.
        """
        last = [*chunks, {"type": "markdown_text", "text": message.text}]
        args: dict[str, Any] = {"channel": message.channel, "ts": message.ts, "chunks": last}
        if key:
            args["metadata"] = {"event_type": POST_EVENT_TYPE, "event_payload": {"key": key}}
        await self.call("chat.stopStream", args)

    async def call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """One Web API call (``reactions.add``, ``assistant.threads.setStatus``, ...); its answer.

        Raises:
            ChannelError: the API could not be reached or answered ``ok: false``.
        """
        return await self._call(method, args)

    async def _posted(self, message: ChannelMessage, key: str) -> str:
        """The ``ts`` of a message this harness posted under ``key`` lately, or ``""``."""
        oldest = f"{self.clock.now().timestamp() - LOOKBACK_SECONDS:.6f}"
        method = "conversations.replies" if message.thread else "conversations.history"
        args: dict[str, Any] = {
            "channel": message.channel,
            "oldest": oldest,
            "include_all_metadata": True,
            "limit": 200,
        }
        if message.thread:
            args["ts"] = message.thread
        cursor = ""
        for _ in range(LOOKUP_PAGES):
            answer = await self._call(method, {**args, "cursor": cursor} if cursor else args)
            for found in answer.get("messages") or ():
                meta = found.get("metadata") if isinstance(found, dict) else None
                if (
                    isinstance(meta, dict)
                    and meta.get("event_type") == POST_EVENT_TYPE
                    and (meta.get("event_payload") or {}).get("key") == key
                ):
                    return str(found.get("ts", ""))
            cursor = str((answer.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor:
                return ""
        return ""

    async def _call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Authorization": f"Bearer {self.token}",
        }
        try:
            response = await self.http.post(
                self.api_url + method,
                body=json.dumps(args).encode(),
                headers=headers,
                timeout=self.timeout,
                max_bytes=MAX_REPLY_BYTES,
            )
        except HttpClientError as error:
            raise ChannelError(f"{method} did not reach Slack: {error}") from error
        try:
            answer = json.loads(response.body)
        except ValueError:
            answer = None
        if response.status != 200 or not isinstance(answer, dict) or not answer.get("ok"):
            detail = answer.get("error") if isinstance(answer, dict) else response.body[:200]
            code = detail if isinstance(detail, str) else ""
            raise ChannelError(f"{method} failed: HTTP {response.status}: {detail!r}", code=code)
        return answer
