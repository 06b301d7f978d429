"""Default bodies of ``channel.received`` and ``channel.sent`` over the Slack Web API.

``channel.sent`` posts with ``chat.postMessage`` (or ``chat.postEphemeral`` when the
message names a ``user``: only that person sees it) through the worker's
:class:`~harness.providers.HttpClient`, at the base URL in Settings: Slack itself, or
the bot's local stand-in in local mode. ``channel.received`` normalises what the bot
forwarded. Help-request buttons are built here too (:func:`help_blocks`), because
the action ids are the contract between the worker's post and the bot's click handler.
"""

from __future__ import annotations

import json
from typing import Any, Final, final

from harness.channels.guard import ConversationGuard
from harness.errors import HarnessError
from harness.hooks import BUILTIN_BODY_PRIORITY, ROLE_GUARD_PRIORITY, HookManager, Registration
from harness.hooks.contexts import (
    ChannelReceivedContext,
    ChannelSentContext,
    HelpRequest,
)
from harness.http import HttpClientError
from harness.providers import HttpClient

HELP_ACTION_PREFIX: Final = "help:"
"""Action id of a help button: ``help:<request id>:<option index>`` (Slack caps ids at 255)."""

MAX_REPLY_BYTES: Final = 64 * 1024

REPLY_HINT: Final = "reply in this thread to answer"
"""Shown with a question that has no buttons: the task takes the next reply as the answer."""


class ChannelError(HarnessError):
    """Slack (or the stand-in) did not accept a post; the operation fails and is retried."""


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
        blocks.append({"type": "context",
                       "elements": [{"type": "mrkdwn", "text": f"_{REPLY_HINT}_"}]})  # fmt: skip
    else:
        blocks.append({
            "type": "actions",
            "block_id": f"help-{request.request_id}"[:255],
            "elements": [
                {"type": "button", "text": {"type": "plain_text", "text": option[:75]},
                 "action_id": f"{HELP_ACTION_PREFIX}{request.request_id}:{index}"[:255],
                 "value": option[:2000]}
                for index, option in enumerate(request.options)
            ],
        })  # fmt: skip
    return tuple(blocks)


@final
class SlackChannel:
    """Posts to and normalises messages from Slack.

    Args:
        http: the worker's HTTP client.
        api_url: the Web API base URL, ending in ``/`` (``https://slack.com/api/``).
        token: the bot token sent as a bearer header.
        timeout: seconds one post may take.
    """

    def __init__(
        self, *, http: HttpClient, api_url: str, token: str, timeout: float = 10.0
    ) -> None:
        self.http = http
        self.api_url = api_url if api_url.endswith("/") else api_url + "/"
        self.token = token
        self.timeout = timeout

    async def channel_sent(self, ctx: ChannelSentContext) -> ChannelSentContext:
        """Post the message; the result carries the ``ts`` Slack gave it.

        Raises:
            ChannelError: the API could not be reached or answered ``ok: false``.
        """
        message = ctx.message
        args: dict[str, Any] = {"channel": message.channel, "text": message.text}
        if message.thread:
            args["thread_ts"] = message.thread
        if message.blocks:
            args["blocks"] = list(message.blocks)
        method = "chat.postMessage"
        if message.user:
            method, args["user"] = "chat.postEphemeral", message.user
        answer = await self._call(method, args)
        ts = str(answer.get("ts") or answer.get("message_ts") or "")
        return ctx.model_copy(update={"result": message.model_copy(update={"ts": ts})})

    async def channel_received(self, ctx: ChannelReceivedContext) -> ChannelReceivedContext:
        """Trim the text (line breaks inside are the author's and stay)."""
        text = ctx.message.text.strip()
        return ctx.model_copy(update={"result": ctx.message.model_copy(update={"text": text})})

    async def _call(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Authorization": f"Bearer {self.token}",
        }
        try:
            response = await self.http.post(
                self.api_url + method, body=json.dumps(args).encode(), headers=headers,
                timeout=self.timeout, max_bytes=MAX_REPLY_BYTES,
            )  # fmt: skip
        except HttpClientError as error:
            raise ChannelError(f"{method} did not reach Slack: {error}") from error
        try:
            answer = json.loads(response.body)
        except ValueError:
            answer = None
        if response.status != 200 or not isinstance(answer, dict) or not answer.get("ok"):
            detail = answer.get("error") if isinstance(answer, dict) else response.body[:200]
            raise ChannelError(f"{method} failed: HTTP {response.status}: {detail!r}")
        return answer


def register_channel_builtin(
    manager: HookManager, channel: SlackChannel, *, watchers_may_talk: bool = False
) -> list[Registration]:
    """Register the channel's default bodies at :data:`BUILTIN_BODY_PRIORITY`, and its guard.

    The guard (:class:`~harness.channels.guard.ConversationGuard`) runs at
    ``channel.received.pre``, :data:`ROLE_GUARD_PRIORITY`, like the commands' role guard.
    """
    # Any: each body takes its own operation's context type, narrower than Executor's.
    bodies: dict[str, Any] = {
        "channel.sent": channel.channel_sent,
        "channel.received": channel.channel_received,
    }
    guard = ConversationGuard(watchers_may_talk=watchers_may_talk)
    return [
        manager.register("channel.received.pre", guard, priority=ROLE_GUARD_PRIORITY),
        *(
            manager.register(f"{operation}.in", body, priority=BUILTIN_BODY_PRIORITY)
            for operation, body in bodies.items()
        ),
    ]
