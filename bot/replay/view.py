"""What a person in Slack would see of each exchange: the form two recordings are compared in.

A recording holds every call; two runs of the same traffic differ in what nobody sees
(how many times a progress message was updated, the ``ts`` Slack gave a post, a task id's
uuid, how many seconds a turn took). :func:`views` folds each exchange into what is
visible once it settled:

- ``response``: the HTTP status and body the bot answered (a Socket Mode ack alike);
- ``replies``: what was posted to the request's ``response_url``;
- ``posts``: each message the bot or the worker posted, as it ended up (after every
  ``chat.update``, stream append, deletion and reaction), with its buttons;
- ``calls``: any other Web API call that changes something (``views.open``, …).

Reads (``conversations.*``, ``auth.test``) and passing states (``assistant.threads.setStatus``)
are left out. Texts are normalised (:class:`Normaliser`): ``ts`` values become ``<ts1>``,
``<ts2>`` … in order of first appearance, uuids ``<uuid>``, durations ``<n> s``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, final

from bot.recording.format import Effect, Recording, RequestLine, ResponseUrlLine, WebApiLine

POST_METHODS: Final = frozenset({"chat.postMessage", "chat.postEphemeral", "chat.startStream"})
IGNORED_METHODS: Final = frozenset(
    {
        "auth.test",
        "conversations.history",
        "conversations.replies",
        "conversations.info",
        "users.info",
        "assistant.threads.setStatus",
        "apps.connections.open",
    }
)
"""Reads and passing states: nothing a person sees afterwards."""
MAX_TITLE_CHARS: Final = 100
"""What a title shows of what was sent: a 20 MB command is named, not printed."""
_TS: Final = re.compile(r"\b\d{9,10}\.\d{6}\b")
_UUID: Final = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_DURATION: Final = re.compile(r"\b\d+(?:\.\d+)?(?= ?(?:ms|s|min|h)\b)")
_PORT: Final = re.compile(r"\b(127\.0\.0\.1|localhost):\d+")


@final
class Normaliser:
    """Replaces what differs between two runs of the same traffic; one per recording."""

    def __init__(self) -> None:
        self._ts: dict[str, str] = {}

    def ts(self, value: str) -> str:
        """``<tsN>`` for a Slack ts, the same N for the same value."""
        if not value:
            return ""
        return self._ts.setdefault(value, f"<ts{len(self._ts) + 1}>")

    def text(self, value: str) -> str:
        """One text, normalised."""
        value = _TS.sub(lambda m: self.ts(m.group(0)), value)
        value = _UUID.sub("<uuid>", value)
        value = _DURATION.sub("<n>", value)
        return _PORT.sub(r"\1:<port>", value)

    def value(self, value: Any) -> Any:  # noqa: ANN401  # any JSON value
        """A JSON value with every text normalised."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, dict):
            return {key: self.value(item) for key, item in value.items() if key != "metadata"}
        return value


@dataclass
class _Message:
    request: str
    method: str
    channel: str
    thread: str
    user: str
    text: str
    buttons: list[str]
    reactions: list[str] = field(default_factory=list)
    deleted: bool = False

    def shown(self, norm: Normaliser) -> dict[str, Any]:
        out: dict[str, Any] = {
            "method": self.method,
            "channel": self.channel,
            "thread": norm.ts(self.thread),
            "text": norm.text(self.text),
        }
        if self.user:
            out["only_for"] = self.user
        if self.buttons:
            out["buttons"] = [norm.text(b) for b in self.buttons]
        if self.deleted:
            out["deleted"] = True
        return out


def button_elements(blocks: object) -> list[dict[str, Any]]:
    """The buttons of a message's blocks, in order."""
    return [
        element
        for block in (blocks if isinstance(blocks, list) else [])
        if isinstance(block, dict) and block.get("type") == "actions"
        for element in block.get("elements") or []
        if isinstance(element, dict) and element.get("type") == "button"
    ]


def buttons(blocks: object) -> list[str]:
    """``"label -> action_id:value"`` for each button of a message's blocks."""
    return [
        f"{(b.get('text') or {}).get('text', '')} -> {b.get('action_id', '')}:{b.get('value', '')}"
        for b in button_elements(blocks)
    ]


def _ordered(recording: Recording) -> list[Effect]:
    """Every effect, in the order it happened."""
    every = [e for effects in recording.effects.values() for e in effects]
    return sorted(every, key=lambda e: e.at)


def views(recording: Recording) -> dict[str, dict[str, Any]]:
    """Each request id -> what was seen of its exchange once everything settled."""
    norm = Normaliser()
    messages: dict[str, _Message] = {}  # by ts
    reactions: dict[str, dict[str, Any]] = {}  # by the reacted message's ts
    out: dict[str, dict[str, Any]] = {}
    for request in recording.requests:
        for value in _ts_in(request):
            norm.ts(value)  # the requests' own ts are numbered first, in request order
        out[request.id] = {
            "response": _response(request, norm),
            "replies": [],
            "posts": [],
            "calls": [],
        }
    for effect in _ordered(recording):
        view = out.get(effect.request or "")
        if isinstance(effect, ResponseUrlLine):
            if view is not None:
                view["replies"].append(norm.value(_reply(effect.payload)))
            continue
        _fold(effect, view, messages, reactions, norm)
    for ts, message in messages.items():
        if message.request in out:
            shown = message.shown(norm)
            if ts in reactions:
                shown["reactions"] = sorted(reactions[ts]["names"])
            out[message.request]["posts"].append(shown)
    for state in reactions.values():
        if state["ts"] not in messages and state["request"] in out and state["names"]:
            out[state["request"]]["calls"].append(
                {"reactions": sorted(state["names"]), "on": norm.ts(state["ts"])}
            )
    for view in out.values():
        for key in ("posts", "calls"):
            view[key].sort(key=lambda item: json.dumps(item, sort_keys=True))
    return out


def _fold(
    effect: WebApiLine,
    view: dict[str, Any] | None,
    messages: dict[str, _Message],
    reactions: dict[str, dict[str, Any]],
    norm: Normaliser,
) -> None:
    args, method = effect.args, effect.method
    ts = str(effect.response.get("ts") or args.get("ts") or "")
    if method in POST_METHODS:
        text = str(args.get("text") or args.get("markdown_text") or "")
        messages[ts or f"unposted-{len(messages)}"] = _Message(
            request=effect.request or "",
            method=method,
            channel=str(args.get("channel") or ""),
            thread=str(args.get("thread_ts") or ""),
            text=text,
            buttons=buttons(args.get("blocks")),
            user=str(args.get("user") or "") if method == "chat.postEphemeral" else "",
        )
    elif method == "chat.update" and ts in messages:
        messages[ts].text = str(args.get("text") or messages[ts].text)
        messages[ts].buttons = buttons(args.get("blocks"))
    elif method in ("chat.appendStream", "chat.stopStream") and ts in messages:
        messages[ts].text += str(args.get("markdown_text") or "")
    elif method == "chat.delete" and ts in messages:
        messages[ts].deleted = True
    elif method in ("reactions.add", "reactions.remove"):
        target = str(args.get("timestamp") or "")
        state = reactions.setdefault(
            target, {"ts": target, "request": effect.request or "", "names": set()}
        )
        name = str(args.get("name") or "")
        if method == "reactions.add":
            state["names"].add(name)
        else:
            state["names"].discard(name)
    elif method not in IGNORED_METHODS and view is not None and effect.response.get("ok", True):
        view["calls"].append({"method": method, "args": norm.value(args)})


def _reply(payload: dict[str, Any]) -> dict[str, Any]:
    """A reply's payload as a person sees it: its fields, the blocks as their buttons."""
    out = {k: v for k, v in payload.items() if k not in ("blocks", "metadata")}
    if found := buttons(payload.get("blocks")):
        out["buttons"] = found
    return out


def _response(request: RequestLine, norm: Normaliser) -> dict[str, Any]:
    answer = request.response
    if answer is None:
        return {"status": None}
    body: Any = answer.body
    if body.startswith(("{", "[")):
        try:
            body = _reply(json.loads(body)) if body.startswith("{") else json.loads(body)
        except ValueError:
            pass
    return {"status": answer.status, "body": norm.value(body)}


def _ts_in(request: RequestLine) -> Iterable[str]:
    return _TS.findall(json.dumps(request.payload()))


def title(request: RequestLine) -> str:
    """One line naming an exchange for a person: its id, what was sent, and when."""
    body = request.payload()
    what = "request"
    if body.get("command"):
        what = f"{body['command']} {str(body.get('text', ''))[:60]}".strip()
    elif isinstance(event := body.get("event"), dict):
        kind = str(event.get("type", "event"))
        said = str(event.get("text", ""))[:60]
        what = f"{kind} {said!r}" if said else kind
    elif body.get("ssl_check"):
        what = "ssl_check"
    elif body.get("type"):
        what = str(body["type"])
        if isinstance(actions := body.get("actions"), list) and actions:
            first = actions[0] if isinstance(actions[0], dict) else {}
            what += f" {first.get('action_id', '')}={first.get('value', '')}"
    if len(what) > MAX_TITLE_CHARS:
        what = what[: MAX_TITLE_CHARS - 1] + "…"
    return f"exchange {request.id} at {request.at:.1f} s ({request.transport}): {what}"
