"""What Slack refuses of a message, so the stand-in refuses it too (issue 26).

Slack answers a ``chat.postMessage``, ``chat.postEphemeral`` or ``chat.update`` whose
``text`` is over 40,000 characters with ``msg_too_long`` (it recommends 4,000 and truncates
what it shows, but refuses what it cannot store), blocks that are not a JSON array with
``invalid_blocks_format``, and blocks that break Block Kit's limits with ``invalid_blocks``
and a ``response_metadata.messages`` line naming the limit and where (``[ERROR] must be less
than 3001 characters [json-pointer:/blocks/1/text/text]``). The limits are Block Kit's
for messages (:mod:`harness.channels.slack_limits`; a modal takes 100 blocks, not checked:
the harness opens none). A response URL refuses the same blocks, answering
``invalid_blocks`` with HTTP 400. Pure: what :class:`bot.standin.SlackStandIn` does with a
refusal is its own.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from harness.channels.slack_limits import (
    MAX_ACTIONS_ELEMENTS,
    MAX_BLOCKS,
    MAX_BUTTON_TEXT,
    MAX_CONTEXT_ELEMENTS,
    MAX_FIELD,
    MAX_FIELDS,
    MAX_HEADER,
    MAX_ID,
    MAX_MARKDOWN,
    MAX_TEXT,
    MAX_TEXT_OBJECT,
    MAX_URL,
    MAX_VALUE,
)

CHECKED_METHODS: Final = (
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.stopStream",
)

Problem = tuple[str, str]
"""``(json pointer, what is wrong)``."""


def refusal(method: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """Slack's answer refusing ``method`` with ``args``, or ``None`` when Slack takes it.

    Args:
        method: the Web API method; only :data:`CHECKED_METHODS` are checked.
        args: its arguments, as JSON or form fields (form ``blocks`` are a JSON string).
    """
    if method not in CHECKED_METHODS:
        return None
    text = args.get("text")
    if isinstance(text, str) and len(text) > MAX_TEXT:
        return {"ok": False, "error": "msg_too_long"}
    return blocks_refusal(args.get("blocks"))


def blocks_refusal(blocks: object) -> dict[str, Any] | None:
    """Slack's ``invalid_blocks`` (or ``invalid_blocks_format``) answer for ``blocks``, or ``None``.

    Args:
        blocks: a message's ``blocks``: absent (``None``), a list, or a JSON string of one.
    """
    if blocks is None or blocks == "":
        return None
    if isinstance(blocks, str):
        try:
            blocks = json.loads(blocks)
        except ValueError:
            return {"ok": False, "error": "invalid_blocks_format"}
    if not isinstance(blocks, list):
        return {"ok": False, "error": "invalid_blocks_format"}
    problems = list(_message(blocks))
    if not problems:
        return None
    return {
        "ok": False,
        "error": "invalid_blocks",
        "response_metadata": {
            "messages": [f"[ERROR] {what} [json-pointer:{where}]" for where, what in problems]
        },
    }


def _longer(value: object, limit: int) -> bool:
    return isinstance(value, str) and len(value) > limit


def _too_long(where: str, value: object, limit: int) -> Iterator[Problem]:
    if _longer(value, limit):
        yield where, f"must be less than {limit + 1} characters"


def _message(blocks: list[Any]) -> Iterator[Problem]:
    if len(blocks) > MAX_BLOCKS:
        yield "/blocks", f"no more than {MAX_BLOCKS} items allowed"
    markdown = 0
    for i, block in enumerate(blocks):
        where = f"/blocks/{i}"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            yield where, "must provide an object with a type"
            continue
        yield from _too_long(f"{where}/block_id", block.get("block_id"), MAX_ID)
        if block["type"] == "markdown":
            markdown += len(str(block.get("text") or ""))
        yield from _block(where, block)
    if markdown > MAX_MARKDOWN:
        yield "/blocks", f"markdown blocks must total less than {MAX_MARKDOWN + 1} characters"


def _block(where: str, block: dict[str, Any]) -> Iterator[Problem]:
    kind = block["type"]
    if kind == "section":
        yield from _text(f"{where}/text", block.get("text"), MAX_TEXT_OBJECT)
        fields = block.get("fields") or []
        if len(fields) > MAX_FIELDS:
            yield f"{where}/fields", f"no more than {MAX_FIELDS} items allowed"
        for j, item in enumerate(fields):
            yield from _text(f"{where}/fields/{j}", item, MAX_FIELD)
        if isinstance(block.get("accessory"), dict):
            yield from _element(f"{where}/accessory", block["accessory"])
    elif kind == "header":
        yield from _text(f"{where}/text", block.get("text"), MAX_HEADER)
    elif kind == "context":
        elements = block.get("elements") or []
        if len(elements) > MAX_CONTEXT_ELEMENTS:
            yield f"{where}/elements", f"no more than {MAX_CONTEXT_ELEMENTS} items allowed"
        for j, element in enumerate(elements):
            yield from _text(f"{where}/elements/{j}", element, MAX_TEXT_OBJECT)
    elif kind == "actions":
        elements = block.get("elements") or []
        if len(elements) > MAX_ACTIONS_ELEMENTS:
            yield f"{where}/elements", f"no more than {MAX_ACTIONS_ELEMENTS} items allowed"
        for j, element in enumerate(elements):
            if isinstance(element, dict):
                yield from _element(f"{where}/elements/{j}", element)


def _text(where: str, text: object, limit: int) -> Iterator[Problem]:
    """A text object (``{"type": "mrkdwn", "text": ...}``); an image element has none."""
    if isinstance(text, dict):
        yield from _too_long(f"{where}/text", text.get("text"), limit)


def _element(where: str, element: dict[str, Any]) -> Iterator[Problem]:
    yield from _too_long(f"{where}/action_id", element.get("action_id"), MAX_ID)
    if element.get("type") == "button":
        yield from _text(f"{where}/text", element.get("text"), MAX_BUTTON_TEXT)
        yield from _too_long(f"{where}/value", element.get("value"), MAX_VALUE)
        yield from _too_long(f"{where}/url", element.get("url"), MAX_URL)
