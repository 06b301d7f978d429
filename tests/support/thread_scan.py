"""What people read in Slack holds no internals: the scan over every post of the scenario suite.

Issue 26's acceptance: no thread text contains an exception class name (one of ours or
Python's, or a library's we load), a hook point (``tool.invoked.pre``), a workflow or
question id (``task/…``, ``help-task/…``) or socket text (``Connect call failed``,
``ssl:default``, ``127.0.0.1:``). :class:`ThreadScan` keeps every stand-in a test's bot
serves (and the session's shared one), and after each test reads what Slack took since
it started: the visible text of every ``chat.*`` post, update and stream, every
response-URL reply, and every answer the bot returned to a request itself (a slash
command's reply in its ack, which only its sender sees: :meth:`ThreadScan.answered`); it
also counts what the stand-in refused as Slack would
(:mod:`bot.standin_limits`). The conftest's autouse fixture fails the test naming the post.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from bot.recording import Recording
from bot.recording.format import Line, RequestLine, ResponseUrlLine, WebApiLine
from bot.standin import SlackStandIn
from harness.hooks import OPERATIONS, PHASES

SHOWN_METHODS = (
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.startStream",
    "chat.appendStream",
    "chat.stopStream",
)
_SHOWN_KEYS = ("text", "markdown_text", "title", "output", "details")
"""Keys whose strings a person sees (block ids, action ids and button values are not shown)."""


def _exception_names() -> frozenset[str]:
    found, todo = set(), [BaseException]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return frozenset(n for n in found if re.search(r"(Error|Exception|Abort)$", n))


_POINTS = "|".join(re.escape(f"{op}.{phase}") for op in OPERATIONS for phase in PHASES)
PATTERNS = {
    "a hook point": re.compile(rf"(?<![\w.])({_POINTS})(?![\w])"),
    "a workflow or question id": re.compile(r"(?<![\w/])[\w:-]*task/[\w-]+/[\w.-]+"),
    "socket text": re.compile(
        r"Connect call failed|ssl:default|Cannot connect to host|\[Errno|"
        r"127\.0\.0\.1:|localhost:\d|\[::1\]:"
    ),
}
_WORD = re.compile(r"\b[A-Za-z_]\w*(?:Error|Exception|Abort)\b")
_STATUS_LINK = re.compile(r"^workflow: <[^|>\s]+\|[^>]+> \(Temporal UI\)$", re.MULTILINE)
"""The last line of ``/task status`` when the Temporal UI is configured: a link for operators
to the workflow, by its id (STYLE rule 18: ids stay in the status view's details)."""


def leaks(text: str, names: frozenset[str] | None = None) -> list[str]:
    """What ``text`` shows that it must not, each as ``kind: match``.

    ``names``: the exception classes' names (read now when not given: a class a test
    defined counts too).
    """
    text = _STATUS_LINK.sub("workflow: (link)", text)
    found = [f"{kind}: {m.group(0)}" for kind, rx in PATTERNS.items() for m in rx.finditer(text)]
    names = _exception_names() if names is None else names
    found += [f"an exception class: {w}" for w in _WORD.findall(text) if w in names]
    return found


def shown(value: Any) -> Iterator[str]:
    """Every string a person sees in a call's arguments (blocks and chunks walked)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _SHOWN_KEYS and isinstance(item, str):
                yield item
            elif isinstance(item, dict | list):
                yield from shown(item)
    elif isinstance(value, list):
        for item in value:
            yield from shown(item)


def answer_texts(body: str) -> list[str]:
    """What a person sees of the bot's answer to a request: a JSON answer's shown strings (a
    slash command's ``text`` and blocks), else the body itself (an empty ack shows nothing)."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return [body] if body.strip() else []
    return list(shown(parsed)) if isinstance(parsed, dict | list) else [str(parsed)]


class ThreadScan:
    """The stand-ins of the session, and how far each was read by the test before."""

    def __init__(self) -> None:
        self._read: dict[int, tuple[SlackStandIn, int, int, dict[str, int]]] = {}
        self._answers: list[tuple[str, str]] = []

    def answered(self, request: str, body: str) -> None:
        """Read the bot's own answer to ``request`` too (``body``: what it returned)."""
        self._answers += [(request, text) for text in answer_texts(body)]

    def watch(self, standin: SlackStandIn) -> None:
        """Read ``standin`` too (a bot's: from its first call on)."""
        if id(standin) not in self._read:
            self._read[id(standin)] = (standin, 0, 0, {})

    def problems(self) -> list[str]:
        """What the stand-ins took since the last call that shows internals, or refused."""
        found: list[str] = []
        names = _exception_names()
        answers, self._answers = self._answers, []
        found += [
            f"answer to {request}: {leak} in {t!r}"
            for request, t in answers
            for leak in leaks(t, names)
        ]
        for key, (standin, calls, refused, responses) in list(self._read.items()):
            for method, args in standin.calls[calls:]:
                if method in SHOWN_METHODS:
                    where = f"{method} in {args.get('channel', '?')}"
                    found += [
                        f"{where}: {leak} in {t!r}" for t in shown(args) for leak in leaks(t, names)
                    ]
            for url, posts in standin.responses.items():
                for payload in posts[responses.get(url, 0) :]:
                    found += [
                        f"response {url}: {leak} in {t!r}"
                        for t in shown(payload)
                        for leak in leaks(t, names)
                    ]
            found += [
                f"{method} refused by Slack ({error}): {str(args)[:300]}"
                for method, args, error in standin.refused[refused:]
            ]
            self._read[key] = (
                standin,
                len(standin.calls),
                len(standin.refused),
                {url: len(posts) for url, posts in standin.responses.items()},
            )
        return found


def recorded_leaks(recording: Recording) -> list[str]:
    """What a recording (``BOT_RECORD``) shows that it must not: the bot's answers, the Web
    API posts and the response-URL replies it holds, each named as the live scan names it;
    for stacks run as subprocesses (the kit, replays), whose stand-in is not in this process."""
    return line_leaks([*recording.requests, *chain.from_iterable(recording.effects.values())])


def line_leaks(lines: Iterable[Line]) -> list[str]:
    """:func:`recorded_leaks` of a recording's lines as read (a header is skipped)."""
    names = _exception_names()
    found = []
    for line in lines:
        if isinstance(line, RequestLine):
            where = f"answer to {_requested(line)}"
            texts = answer_texts(line.response.body if line.response else "")
        elif isinstance(line, ResponseUrlLine):
            where, texts = "a response-URL reply", list(shown(line.payload))
        elif isinstance(line, WebApiLine) and line.method in SHOWN_METHODS:
            where, texts = (
                f"{line.method} in {line.args.get('channel', '?')}",
                list(shown(line.args)),
            )
        else:
            continue
        found += [f"{where}: {x} in {t!r}" for t in texts for x in leaks(t, names)]
    return found


def _requested(request: RequestLine) -> str:
    payload = request.payload()
    if "command" in payload:
        return f"{payload['command']} {payload.get('text', '')}".strip()
    return "an interaction" if "actions" in payload else "an event"
