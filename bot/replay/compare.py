"""Recorded against replayed, exchange by exchange: what differs, as a person reads a diff."""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, TextIO

from bot.recording.format import RequestLine
from bot.replay.view import title

MAX_TEXT_CHARS: Final = 2000
"""A diff shows this much of one text: a 20 MB body is named by its length and hash."""


@dataclass(frozen=True)
class Verdict:
    """One exchange: the same, or the lines of its diff."""

    request: RequestLine
    diff: tuple[str, ...]

    @property
    def same(self) -> bool:
        """Whether the replay did what the recording shows."""
        return not self.diff


def compare(
    requests: Sequence[RequestLine],
    expected: dict[str, dict[str, Any]],
    observed: dict[str, dict[str, Any]],
) -> list[Verdict]:
    """A verdict per request, in order."""
    verdicts = []
    for request in requests:
        want = _lines(expected.get(request.id))
        got = _lines(observed.get(request.id))
        diff = difflib.unified_diff(want, got, "recorded", "replayed", lineterm="", n=2)
        verdicts.append(Verdict(request, tuple(diff)))
    return verdicts


def _lines(view: dict[str, Any] | None) -> list[str]:
    if view is None:
        return ["(nothing: the request was not answered)"]
    shown = {k: _cut(v) for k, v in view.items() if v or k == "response"}
    return json.dumps(shown, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def _cut(value: Any) -> Any:  # noqa: ANN401  # any JSON value
    """``value`` with each text longer than :data:`MAX_TEXT_CHARS` cut, its length and hash
    kept (two long texts that differ past the cut still differ)."""
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        digest = hashlib.sha256(value.encode()).hexdigest()[:16]
        return f"{value[:MAX_TEXT_CHARS]}… ({len(value)} characters, sha256 {digest}…)"
    if isinstance(value, list):
        return [_cut(item) for item in value]
    if isinstance(value, dict):
        return {key: _cut(item) for key, item in value.items()}
    return value


def report(verdicts: Sequence[Verdict], out: TextIO, *, settings_different: int = 0) -> bool:
    """Print one line per exchange, the diff under each that differs, and a total; whether
    every exchange, and every setting (``settings_different`` of them differ), was the same."""
    for verdict in verdicts:
        print(f"{'same' if verdict.same else 'DIFF'}  {title(verdict.request)}", file=out)
        for line in verdict.diff:
            print(f"      {line}", file=out)
    different = sum(not v.same for v in verdicts)
    settings = f"; {settings_different} setting(s) different" if settings_different else ""
    print(
        f"replay: {len(verdicts)} exchanges, {len(verdicts) - different} the same, "
        f"{different} different{settings}",
        file=out,
    )
    return different == 0 and not settings_different
