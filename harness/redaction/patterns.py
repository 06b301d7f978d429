"""What secrets look like: the families the redactor masks by default, in text and in JSON.

Shapes only, no masking: :mod:`harness.redaction.redactor` decides what to do with a match.
Each family is a pattern over text; the redactor's fast path tests a value's JSON bytes
instead, so each family also has a JSON test, and that test is a superset: whatever the
text pattern finds in a string, the JSON test finds in that string's JSON-escaped bytes.
Escapes break that easily (in ``"\\ttoken"`` the escape's ``t`` sits right before the
keyword, issue 9), so the JSON tests avoid ``\\b`` and ``\\s`` (but in negated classes),
and use a look-behind only where it allows for an escape.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Final

TOKEN_PATTERNS: Final[tuple[str, ...]] = (
    r"xox[abprse]-[A-Za-z0-9-]{6,}",  # Slack bot, user, app-level, refresh and config tokens
    r"xapp-[A-Za-z0-9-]{6,}",  # Slack app-level token (Socket Mode)
    r"sk-ant-[A-Za-z0-9_-]{16,}",  # Anthropic
    r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",  # OpenAI
    r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained tokens
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}",  # AWS access key ids
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    # Slack incoming webhooks and response URLs: the path is the credential, the host stays.
    r"(?<=(?ai:hooks\.slack\.com)/)(?:services|commands|actions|workflows|triggers)/[A-Za-z0-9_/-]+",
    r"AIza[0-9A-Za-z_-]{35}",  # Google API keys
    r"ya29\.[0-9A-Za-z_-]{12,}",  # Google OAuth access tokens
    r"(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}",  # Stripe secret and restricted keys
    r"whsec_[0-9A-Za-z]{10,}",  # Stripe webhook signing secrets
    r"gl(?:pat|ptt|dt|rt|cbt|imt|soat|ft|oas)-[0-9A-Za-z_-]{20,}",  # GitLab tokens
)
"""Token formats masked whole wherever they appear. None looks at what precedes it (the
webhook's look-behind is a host name) or matches what JSON escapes, except as ``[\\s\\S]``
(anything), so each matches the same in JSON bytes and serves as its own JSON test."""

# Key names whose value goes in "key: value" text (headers, JSON, query strings, env files).
# ASCII case-insensitive ("a"): the JSON test lowers bytes, which knows no Kelvin sign K.
KEY_NAMES: Final = (
    r"authorization|proxy-authorization|x-api-key|api[_-]?key|access[_-]?token"
    r"|refresh[_-]?token|client[_-]?secret|aws[_-]?secret[_-]?access[_-]?key|password"
    r"|passwd|secret|token"
)
# In every pattern below the group ``secret`` is what gets masked; the rest stays readable.
KEYED_VALUE: Final = (
    r"\b(?ai:" + KEY_NAMES + r")\b"
    r"[\"']?\s*[:=]\s*[\"']?"
    r"(?!(?:(?ai:bearer|basic|token|bot)\s+)?{mask})"  # already masked: idempotent
    r"(?:(?ai:bearer|basic|token|bot)\s+)?"
    r"(?P<secret>[^\s\"'&,;}}\]]+)"
)
BEARER: Final = r"\b(?ai:bearer)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})"
# RFC 7617 credentials on their own; ASCII blanks only, so the JSON test knows every form.
# Whether it is one is decided by :func:`is_basic_credential`, not by the shape.
BASIC: Final = r"\b(?ai:basic)[ \t]+(?P<secret>[A-Za-z0-9+/]{2,}={0,2})(?![A-Za-z0-9+/=])"
# scheme://user:password@host. It starts at "://" (a literal, so a fast scan) and the scheme
# is left out: matching it would make every long word a quadratic backtrack.
URL_CREDENTIALS: Final = r"://[^\s/?#@:\"'<>]*:(?P<secret>[^\s/?#\"'<>]+)@"
"""Also its own JSON test: escapes only lengthen what the negated classes accept."""

JSON_BASIC: Final = rb"basic(?: |\\t)+(?P<secret>[a-z0-9+/]{2,}={0,2})(?![a-z0-9+/=])"
""":data:`BASIC` in lowered JSON bytes: a tab is ``\\t`` there; no ``\\b`` (an escape's letter
before). Lowered, so it opens on a literal CPython's engine looks for at once (``(?i:`` would
try every position); the credential is read from the original bytes at the same offsets."""

GATE: Final = (
    r"a(?:pi|uth|kia|sia|gpa|ida|roa|npa|iza)|b(?:earer|asic)|p(?:assw|rivate)"
    r"|s(?:ec(?:ret|_)|k-|lack\.com/)|x(?:ox|app-)|g(?:h[pousr]_|ithub_pat_"
    r"|l(?:pat|ptt|dt|rt|cbt|imt|soat|ft|oas)-)|k(?:_live_|_test_|en|ie)|y(?:j|a29\.)"
)
"""Lower-case text found in every match of a token pattern, key name, bearer or basic value.

``ken`` stands for ``token``, ``kie`` for ``cookie``, ``yj`` for ``eyJ``, ``k_live_`` for
Stripe's ``sk_``/``rk_``, ``sec_`` for ``whsec_``; ``private`` covers private-key blocks.
Rust's regex engine runs it (:class:`~harness.redaction.json_scan.Gate`, issue 27), so it
is written in the syntax that engine reads: no look-around, no ``\\b``. A case-sensitive
alternation over lowered text is faster than ``(?i)`` there too.
"""

GATE_WORDS: Final = ("api", "auth", "token", "secret", "passw", "bearer", "cookie", "private")
"""Words of :data:`GATE`: a field name containing one needs no gate entry of its own."""

KEY_WORDS: Final = KEY_NAMES + "|bearer"
"""Whole words found in every keyed value and bearer token (lower case, ``_`` or ``-``)."""

# A word starts after a non-word character, or right after a JSON escape (\t, \n, \u0001
# ...), or at the start, and ends before a non-word character or at the end: read as text
# around the word, since Rust's engine has no look-around (the same texts hold a match).
RS_WORD_START: Final = r"(?:^|[^a-z0-9_]|\\[bfnrt]|\\u00[0-9a-f]{2})"
RS_WORD_END: Final = r"(?:[^a-z0-9_]|$)"

# Escapes that stand for one printable ASCII character JSON writes as itself.
_PLAIN_ESCAPES: Final = frozenset(" !#$%&'()*+,-./:;<=>?@[]^_`{|}~")
_SCANNER: Final = re.compile(
    r"\\(?P<escape>.)|(?P<open>\[\^?)|(?P<group>\(\?(?:P<\w+>|:)?|\()"
    r"|(?P<unsafe>[.^$\"]|[^\x20-\x7e])|(?P<plain>[^\\\[(.^$\"]+?)",
    re.DOTALL,
)
_CLASS_ITEM: Final = re.compile(r"\\(?P<escape>.)|(?P<char>[^\\\]])", re.DOTALL)


def is_json_safe(pattern: str) -> bool:
    """Whether ``pattern`` matches a value's JSON bytes wherever it matches the value's text.

    Conservative: only printable ASCII literals, escaped punctuation, plain and named
    groups, alternation, quantifiers and positive classes of such characters pass, so
    nothing JSON escapes (quotes, backslash, control characters), no boundary, anchor,
    look-around or flag, and no ``\\d`` or ``\\w`` (Unicode in text, ASCII in bytes). A
    pattern that fails only loses the fast path. ``[0-9]`` keeps it where ``\\d`` would not.

    Args:
        pattern: a regular expression over text.

    Returns:
        ``True`` when the redactor may test the pattern over JSON bytes.
    """
    position = 0
    while position < len(pattern):
        token = _SCANNER.match(pattern, position)
        if token is None or token["unsafe"] or token["open"] == "[^":
            return False
        if token["escape"] is not None and token["escape"] not in _PLAIN_ESCAPES:
            return False
        if token["group"] in ("(?", "(?P"):  # look-arounds, flags, conditionals, back-references
            return False
        position = token.end()
        if token["open"] == "[":
            position = _class_end(pattern, position)
            if position < 0:
                return False
    return True


def _class_end(pattern: str, position: int) -> int:
    """Where a positive class opened before ``position`` ends, or -1 if it may match escapes."""
    chars: list[str] = []
    while position < len(pattern) and (pattern[position] != "]" or not chars):
        item = _CLASS_ITEM.match(pattern, position)
        if item is None or (item["escape"] is not None and item["escape"] not in _PLAIN_ESCAPES):
            return -1
        chars.append(item[0][-1])
        position = item.end()
    # The class's span of code points, ranges included, must hold only what JSON writes as is.
    if position >= len(pattern) or any(not " " <= c <= "~" or c in '"\\' for c in chars):
        return -1
    text = "".join(chars)
    if re.search(r"[ -!]-[#-~]|[#-\[]-[\]-~]", text):  # a range over '"' or '\\'
        return -1
    return position + 1


def is_basic_credential(token: str | bytes) -> bool:
    """Whether ``token`` is RFC 7617 credentials: base64 of printable UTF-8 ``user:password``.

    The shape alone is ordinary prose ("Basic features"); decoding is what tells.
    """
    if isinstance(token, bytes):
        token = token.decode("ascii")  # the base64 alphabet is ASCII, as the patterns ask
    padded = token + "=" * (-len(token) % 4)
    try:
        decoded = base64.b64decode(padded, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):  # UnicodeDecodeError is a ValueError
        return False
    return ":" in decoded and decoded.isprintable()
