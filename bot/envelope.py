"""The shapes of Slack request bodies the gate lets through to bolt, as pydantic models.

Not Slack's schema: only the keys that bolt (its context builders, listener matchers
and built-in middleware) and this bot's listeners read, each with the type they
assume, so that reading them cannot raise. Bolt trusts signed bodies and indexes
into them (``body["actions"][0]``, ``body.get("event", {}).get(...)``), so a signed
body of the wrong shape used to become a 500 with a traceback (issue 9). Any other
key passes untouched and unread. :func:`parse` mirrors bolt's own body parsing, so
what is checked is what bolt will see. The gate that calls it is :mod:`bot.gate`.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Final, final
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator
from slack_bolt.request.internals import build_normalized_headers, extract_content_type, parse_body

MAX_DEPTH: Final = 48
"""Deeper JSON than Slack sends (a rich-text message is ~10 levels): bolt recurses into it."""

Text = StrictStr | None


class _Shape(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


@final
class Ref(_Shape):
    """An object Slack sends where an id could be: a team, user, channel or enterprise."""

    id: Text = None
    team_id: Text = None
    enterprise_id: Text = None


@final
class Action(_Shape):
    """One element of ``actions`` (a click); its ``text`` is an object, unlike a :class:`Node`'s."""

    action_id: Text = None
    block_id: Text = None
    value: Text = None
    type: Text = None


@final
class ResponseUrl(_Shape):
    """One element of ``response_urls`` (a modal's)."""

    response_url: Text = None


@final
class Node(_Shape):
    """The body itself and every nested object bolt's extractors recurse into.

    ``event`` and ``response_urls`` may be absent but not ``null`` (bolt reads them
    with ``body.get("event", {})`` and ``len(...)``); ``actions`` may not be empty
    (bolt reads ``body["actions"][0]``).
    """

    type: Text = None
    subtype: Text = None
    token: Text = None
    id: Text = None
    team_id: Text = None
    enterprise_id: Text = None
    user_id: Text = None
    channel_id: Text = None
    api_app_id: Text = None
    event_id: Text = None
    command: Text = None
    text: Text = None
    trigger_id: Text = None
    response_url: Text = None
    challenge: Text = None
    ssl_check: Text = None
    ts: Text = None
    thread_ts: Text = None
    event_ts: Text = None
    bot_id: Text = None
    user_team: Text = None
    channel_type: Text = None
    callback_id: Text = None
    app_installed_team_id: Text = None
    context_team_id: Text = None
    context_enterprise_id: Text = None
    function_execution_id: Text = None
    execution_id: Text = None
    bot_access_token: Text = None
    tab: Text = None
    team: StrictStr | Ref | None = None
    enterprise: StrictStr | Ref | None = None
    user: StrictStr | Ref | None = None
    channel: StrictStr | Ref | None = None
    event: Node | None = None
    message: Node | None = None
    previous_message: Node | None = None
    item: Node | None = None
    assistant_thread: Node | None = None
    function_data: Node | None = None
    view: Node | None = None
    container: Node | None = None
    workflow_step: Node | None = None
    authorizations: list[Node] | None = None
    actions: list[Action] | None = Field(default=None, min_length=1)
    response_urls: list[ResponseUrl] | None = None

    @field_validator("event", "response_urls", mode="before")
    @classmethod
    def _present_means_not_null(cls, value: object) -> object:
        if value is None:
            raise ValueError("may be absent, not null")
        return value


class MalformedBody(ValueError):
    """A signed body bolt must not see; the message says what is wrong (for the log only)."""


def parse(text: str, headers: Mapping[str, str | Sequence[str]]) -> dict[str, Any]:
    """The body as bolt will parse it, once its shape is known to be safe for bolt.

    Args:
        text: the body, decoded.
        headers: the request's headers (bolt picks the parser by content type).

    Raises:
        MalformedBody: not an object, deeper than :data:`MAX_DEPTH`, or a key bolt
            reads has the wrong type.
    """
    try:
        body = _parse_body(text, content_type_of(headers))
    except MalformedBody:
        raise
    except (ValueError, RecursionError) as error:  # JSONDecodeError, int digits limit, nesting
        raise MalformedBody(f"unparsable: {type(error).__name__}") from None
    return check(body)


def content_type_of(headers: Mapping[str, str | Sequence[str]]) -> str | None:
    """The media type of a request's ``Content-Type`` (parameters dropped), as bolt reads it."""
    return extract_content_type(build_normalized_headers(dict(headers)))


def reads_as_json(text: str, content_type: str | None) -> bool:
    """Whether bolt, and so the gate, reads ``text`` as JSON, whatever its label says.

    Bolt's rule, kept here once for everyone who reads a body as the bot did (the gate,
    the recorder, the replay): labelled ``application/json`` or starting with ``{``; any
    other body is a form.
    """
    return content_type == "application/json" or text.startswith("{")


def check(body: object) -> dict[str, Any]:
    """``body`` itself, once its shape is known to be safe for bolt (parsed JSON of any shape).

    The gate checks HTTP bodies with it (:func:`parse`); Socket Mode, whose payloads
    arrive parsed, checks each envelope's (:mod:`bot.socket_mode`).

    Raises:
        MalformedBody: not an object, deeper than :data:`MAX_DEPTH`, or a key bolt
            reads has the wrong type.
    """
    if not isinstance(body, dict):
        raise MalformedBody(f"not an object but {type(body).__name__}")
    if _depth(body) > MAX_DEPTH:
        raise MalformedBody(f"nested deeper than {MAX_DEPTH}")
    try:
        Node.model_validate(body)
    except ValidationError as error:
        where = ", ".join(".".join(map(str, e["loc"])) or "body" for e in error.errors()[:3])
        raise MalformedBody(f"wrong shape at {where}") from None
    return body


def _parse_body(text: str, content_type: str | None) -> Any:  # noqa: ANN401  # any JSON
    """Bolt's ``parse_body``, except for a form body that merely contains the word "payload",
    and with a form field given twice refused; a form body is parsed once for both.

    Bolt takes any form body holding the substring ``payload`` for an interactivity
    payload and, finding no ``payload`` field, parses it as ``{}``: a slash command
    such as ``/sub-task check the payload size`` was lost (a 404). Here such a body
    is the form it is; the gate hands bolt this parse (:func:`bot.gate.bolt_request`).

    Raises:
        MalformedBody: a form field is given more than once (``text=a&text=b``): Slack
            never sends one, and which value applies would be the parser's guess, not
            the sender's (issue 26).
    """
    if reads_as_json(text, content_type):  # bolt's JSON branch
        return parse_body(text, content_type)
    fields = parse_qsl(text, keep_blank_values=True)
    form = dict(fields)
    if len(form) != len(fields):
        counts = Counter(key for key, _ in fields)
        repeated = sorted(key for key, n in counts.items() if n > 1)
        raise MalformedBody(f"form fields given more than once: {', '.join(repeated)[:200]}")
    payload = form.get("payload")
    return form if payload is None else json.loads(payload)


def _depth(value: object) -> int:
    """Nesting depth, without recursion (the value may be as deep as the body is long)."""
    deepest, stack = 0, [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_DEPTH:
            return depth
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return deepest
