"""The forms a secret takes inside a Slack body once encoded again: what is masked besides it.

The scrubber reads a form field percent-decoded once and a JSON string unescaped once, but
what a person typed, or a client sent, may carry a secret encoded once more: a payload key
pasted percent-encoded (``%2B``, ``%2F``, ``%3D``) into a command, a response URL with its
slashes JSON-escaped (``hooks.slack.com\\/actions\\/…``), a token in base64. So each secret
the bot knows is masked in each of these forms too (:func:`encoded_forms`), and a webhook or
response URL, whose path is a secret nobody configured, is found by its shape in each
(:data:`ENCODED_WEBHOOK_PATH`). Bodies that do not parse are not read at all
(:meth:`bot.recording.scrub.Scrubber.request_body`); this is for the text of those that do.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Iterable
from typing import Final
from urllib.parse import quote, quote_plus

MIN_BASE64_CHARS: Final = 12
"""Shorter secrets get no base64 forms: a fragment of a few characters turns up by chance."""
_SEPARATOR: Final = r"(?:\\/|%(?:25)*2[Ff])"
ENCODED_WEBHOOK_PATH: Final = (
    r"(?<=(?ai:hooks\.slack\.com))" + _SEPARATOR + r"(?:services|commands|actions|workflows"
    r"|triggers)" + _SEPARATOR + r"(?:[A-Za-z0-9_-]|" + _SEPARATOR + r")+"
)
"""The secret path of a Slack webhook or response URL whose slashes are JSON-escaped (``\\/``)
or percent-encoded once or more (``%2F``, ``%252F``); the plain form is a default pattern of
the redactor. The host stays readable."""
_HEX_ESCAPE: Final = re.compile(r"%[0-9A-F]{2}")
_BASE64: Final[tuple[Callable[[bytes], bytes], ...]] = (
    base64.b64encode,
    base64.urlsafe_b64encode,
)


def encoded_forms(secret: str) -> set[str]:
    """``secret`` as it is, percent-encoded (once and twice, either case of hex), JSON-escaped
    (``/`` as ``\\/`` too) and, when long enough, in base64 at any alignment."""
    percent = {quote(secret, safe=""), quote_plus(secret, safe=""), quote(secret)}
    percent |= {_HEX_ESCAPE.sub(lambda m: m.group(0).lower(), form) for form in percent}
    percent |= {quote(form, safe="") for form in percent}
    escaped = {json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}
    escaped |= {form.replace("/", "\\/") for form in escaped}
    forms = {secret, *percent, *escaped}
    if len(secret) >= MIN_BASE64_CHARS:
        forms |= base64_cores(secret.encode())
    return forms


def every_form(secrets: Iterable[str]) -> set[str]:
    """The :func:`encoded_forms` of each of ``secrets``."""
    return {form for secret in secrets if secret for form in encoded_forms(secret)}


def base64_cores(data: bytes) -> set[str]:
    """The base64 text that ``data`` becomes wherever it sits in a longer value.

    Base64 turns each 3 bytes into 4 characters, so what ``data`` becomes depends on where
    it starts (3 alignments) and the first and last characters mix in its neighbours' bits:
    for each alignment, the characters made of ``data``'s bits alone, in the standard and
    the URL-safe alphabet.
    """
    cores = set()
    for shift in range(3):
        first, end = -(-8 * shift // 6), 8 * (shift + len(data)) // 6
        for encode in _BASE64:
            cores.add(encode(b"\0" * shift + data).decode("ascii")[first:end])
    return cores
