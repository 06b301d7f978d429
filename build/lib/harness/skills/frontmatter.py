"""A tiny front-matter reader: ``---`` fenced ``key: value`` lines at the top of a markdown file.

Deliberately not YAML: skill headers need a name, a description and a list of tool
names, and a 40-line parser keeps a YAML dependency (and its surprises, like ``no``
becoming ``False``) out of the harness. Values are strings; ``[a, b]`` is a list.
"""

from __future__ import annotations

from typing import Final

FENCE: Final = "---"


class FrontMatterError(ValueError):
    """The header is opened but not closed, or a line is not ``key: value``."""


def parse(text: str) -> tuple[dict[str, str | list[str]], str]:
    """Split ``text`` into its front matter and body.

    Returns:
        ``(fields, body)``; no front matter gives ``({}, text)``.

    Raises:
        FrontMatterError: an unclosed header or a malformed line.
    """
    lines = text.splitlines()
    if not lines or lines[0].strip() != FENCE:
        return {}, text
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == FENCE)
    except StopIteration:
        raise FrontMatterError("front matter opened with --- but never closed") from None
    fields: dict[str, str | list[str]] = {}
    for number, line in enumerate(lines[1:end], 2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip():
            raise FrontMatterError(f"line {number}: expected 'key: value', got {line!r}")
        fields[key.strip()] = _value(value.strip())
    return fields, "\n".join(lines[end + 1 :]).strip("\n")


def _value(raw: str) -> str | list[str]:
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(part.strip()) for part in raw[1:-1].split(",") if part.strip()]
    return _unquote(raw)


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return raw[1:-1]
    return raw
