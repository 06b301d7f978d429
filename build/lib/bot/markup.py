"""Slack's message markup -> the plain text a command or the agent reads, as pure functions.

Slack escapes ``&``, ``<`` and ``>`` typed by a person as ``&amp;``, ``&lt;``,
``&gt;``, and writes mentions, links and specials as ``<…>`` markup. What the
harness gets is plain text (issue 9), decided here once:

* ``<@U…>`` and ``<@U…|name>`` (users) and ``<#C…|name>`` (channels) are kept
  verbatim: commands parse them (``/invite <@U2> watcher``), the agent reads them,
  and the id is not lost, as it would be in ``#name``;
* ``<https://x|label>`` -> ``label (https://x)``, ``<https://x>`` -> ``https://x``;
* ``<!here>``, ``<!channel>``, ``<!everyone>`` -> ``@here`` …; other specials
  (``<!subteam^S1|@ops>``, ``<!date^…|fallback>``) -> their label;
* then the three entities are unescaped, in the same single pass, so ``&lt;@U1&gt;``
  typed by someone stays the text ``<@U1>`` and is never taken for a mention, and
  ``&amp;lt;`` becomes ``&lt;``, not ``<``.

Not a renderer: ``*bold*``, ``_italic_`` and code spans are left as written.
"""

from __future__ import annotations

import re
from typing import Final

_TOKEN: Final = re.compile(r"<([^<>\n]*)>|&(amp|lt|gt);")
_ENTITY: Final = re.compile(r"&(amp|lt|gt);")
_ENTITIES: Final = {"amp": "&", "lt": "<", "gt": ">"}
_SPECIALS: Final = ("here", "channel", "everyone")
_LINK: Final = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:\S*")
_USER_MENTION: Final = re.compile(r"<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>")
_BLANK_START: Final = re.compile(r"^(?:[ \t]*\n)+")


def plain_text(text: str) -> str:
    """``text`` as Slack sent it -> plain text (see the module docstring for each form)."""
    return _TOKEN.sub(_replace, text)


def _replace(match: re.Match[str]) -> str:
    entity = match.group(2)
    if entity is not None:
        return _ENTITIES[entity]
    inner = match.group(1)
    target, _, label = inner.partition("|")
    if target.startswith(("@", "#")):
        return match.group(0)
    if target.startswith("!"):
        name = target[1:]
        if label:
            return _unescape(label)
        return f"@{name}" if name in _SPECIALS else match.group(0)
    if _LINK.fullmatch(target):
        url, shown = _unescape(target), _unescape(label)
        return f"{shown} ({url})" if shown and shown != url else url
    return match.group(0)


def _unescape(text: str) -> str:
    return _ENTITY.sub(lambda m: _ENTITIES[m.group(1)], text)


def mentioned_users(text: str) -> list[str]:
    """The user ids mentioned in ``text`` (Slack markup, not yet :func:`plain_text`)."""
    return _USER_MENTION.findall(text)


def strip_mention(text: str, user_id: str) -> str:
    """``text`` without mentions of ``user_id`` (the bot); only the spaces around them tidied.

    Line breaks survive: a mention inside a line becomes one space, one at either
    edge of a line goes with its spaces, and blank lines it leaves at the start go.
    """
    mention = re.compile(rf"[ \t]*<@{re.escape(user_id)}(?:\|[^<>]*)?>[ \t]*")

    def tidy(match: re.Match[str]) -> str:
        start, end = match.start(), match.end()
        at_edge = start == 0 or text[start - 1] == "\n" or end == len(text) or text[end] == "\n"
        return "" if at_edge else " "

    return _BLANK_START.sub("", mention.sub(tidy, text)).rstrip()
