"""The redactor's fast path: cheap tests over a value's JSON bytes that prove it clean.

A miss proves that :meth:`~harness.redaction.redactor.Redactor._walk` would change nothing,
so the value is returned as is; a hit (maybe a false one) only sends it to the walk.
Every test is therefore a superset of a redaction rule, read over JSON's escaped text
(see :mod:`harness.redaction.patterns`). It masks nothing itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final, NamedTuple

import pydantic_core
from pydantic import BaseModel
from pydantic_core import (
    PydanticUndefined,
    SchemaError,
    SchemaValidator,
    ValidationError,
    core_schema,
)

from harness.redaction.patterns import (
    GATE,
    GATE_WORDS,
    JSON_BASIC,
    KEY_WORDS,
    RS_WORD_END,
    RS_WORD_START,
    TOKEN_PATTERNS,
    URL_CREDENTIALS,
    is_basic_credential,
    is_json_safe,
)

_ASCII_LOWER: Final = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_AT: Final = ord("@")


def field_key(name: str) -> str:
    """How a field or key name is compared: ASCII lower case, ``-`` read as ``_``.

    ASCII only, as ``bytes.lower`` is in the fast path (``str.lower`` turns the Kelvin
    sign into ``k``, which lowered JSON bytes never would).
    """
    return (name.lower() if name.isascii() else name.translate(_ASCII_LOWER)).replace("-", "_")


def _json_escaped(text: str) -> bytes | None:
    try:
        return pydantic_core.to_json(text)[1:-1]
    except pydantic_core.PydanticSerializationError:
        return None  # lone surrogates: no JSON text holds this string


class Gate:
    """A test of :meth:`JsonDetector.is_clean` run by Rust's regex engine (issue 27).

    The gate (an alternation of short literals: :data:`~harness.redaction.patterns.GATE`,
    field names, configured secrets) reads every clean value whole, and the tests behind it
    every value it lets through: CPython's engine tries a match at each position whose
    byte may start one (every position, for a pattern opening on a look-behind or a class),
    Rust's finds literals all at once: five times faster for the gate on a context, twenty
    for the tests behind it. pydantic-core is that engine's one door in this environment: a
    string pattern, in a union whose two branches tell a hit (bytes) from a miss (str)
    without an exception; bytes that are not UTF-8 fail both branches, so never pass.
    """

    __slots__ = ("_validator",)

    def __init__(self, validator: SchemaValidator) -> None:
        self._validator = validator

    @classmethod
    def build(cls, parts: list[str]) -> Gate | None:
        """The gate matching any of ``parts``, or ``None`` if Rust's engine refuses them.

        Args:
            parts: patterns in Rust's syntax (literals escaped by :func:`_literal`, groups,
                classes and alternations; no look-around).
        """
        try:
            hit = core_schema.str_schema(pattern="|".join(parts), regex_engine="rust-regex")
            validator = SchemaValidator(
                core_schema.union_schema(
                    [
                        core_schema.chain_schema([hit, core_schema.bytes_schema()]),
                        core_schema.str_schema(),
                    ],
                    mode="left_to_right",
                )
            )
        except SchemaError:  # over the engine's size limit, say: no fast path, not a wrong one
            return None
        return cls(validator)

    def hits(self, lowered: bytes) -> bool:
        """Whether the gate matches anywhere in ``lowered`` (or cannot read it as UTF-8)."""
        try:
            return type(self._validator.validate_python(lowered)) is bytes
        except ValidationError:
            return True


class JsonDetector(NamedTuple):
    """The compiled tests; ``None`` from :meth:`build` when no JSON test can be trusted."""

    gate: Gate | None
    words: Gate | None
    tokens: Gate | None
    basic: re.Pattern[bytes] | None
    url: re.Pattern[bytes] | None
    user: tuple[re.Pattern[bytes], ...]

    @classmethod
    def build(
        cls, *, defaults: bool, fields: Iterable[str], secrets: Iterable[str], user: list[str]
    ) -> JsonDetector | None:
        """Tests for the redactor's rules, or ``None`` when a user pattern is not JSON-safe.

        Args:
            defaults: whether the default families and keyed values are masked.
            fields: field names already folded by :func:`field_key`.
            secrets: literal secrets, searched as raw and as JSON-escaped bytes.
            user: user patterns; one that fails ``is_json_safe`` disables the fast path.
        """
        if not all(is_json_safe(pattern) for pattern in user):
            return None
        gate = [GATE] if defaults else []
        words = [KEY_WORDS] if defaults else []
        for name in fields:
            escaped = _json_escaped(name)
            if escaped is None:
                continue  # no JSON key can spell it either
            word = "[_-]".join(map(_literal, escaped.lower().decode().split("_")))
            words.append(word)
            if not (defaults and any(known in name for known in GATE_WORDS)):
                gate.append(word)
        forms = {form for s in secrets for form in (_json_escaped(s), _utf8(s)) if form}
        # In the gate too (lowered, as it reads): one scan for all, not a second one per value.
        gate += [_literal(form.lower().decode()) for form in forms]
        # Token families and secrets read the text as it is, in one scan (case counts).
        tokens = [*map(_consumed, TOKEN_PATTERNS)] if defaults else []
        tokens += [_literal(form.decode()) for form in forms]
        found = (
            Gate.build(gate) if gate else None,
            Gate.build([f"{RS_WORD_START}(?:{'|'.join(words)}){RS_WORD_END}"]) if words else None,
            Gate.build(tokens) if tokens else None,
        )
        if any(
            parts and test is None for parts, test in zip((gate, words, tokens), found, strict=True)
        ):
            return None  # a test Rust's engine refuses: every value takes the walk
        return cls(
            *found,
            basic=re.compile(JSON_BASIC) if defaults else None,
            url=re.compile(URL_CREDENTIALS.encode()) if defaults else None,
            user=tuple(re.compile(pattern.encode()) for pattern in user),
        )

    def is_clean(self, text: bytes) -> bool:
        """Whether the value whose JSON is ``text`` holds nothing the redactor would mask."""
        if self.gate is not None:
            lowered = text.lower()
            if self.gate.hits(lowered):
                if self.words is not None and self.words.hits(lowered):
                    return False
                if self.tokens is not None and self.tokens.hits(text):
                    return False
                if self.basic is not None and any(
                    is_basic_credential(text[m.start("secret") : m.end("secret")])
                    for m in self.basic.finditer(lowered)  # lowering keeps every offset
                ):
                    return False
        # '@' is rare in JSON and ':' is everywhere: a byte search first keeps URLs cheap
        # (an int: a memchr; b"@" would go through the buffer protocol, five times slower).
        if self.url is not None and _AT in text and self.url.search(text) is not None:
            return False
        for pattern in self.user:  # a loop, not all(...): no generator on the hot path
            if pattern.search(text) is not None:
                return False
        return True


def _utf8(text: str) -> bytes | None:
    try:
        return text.encode()
    except UnicodeEncodeError:
        return None


def _literal(text: str) -> str:
    """``text`` as a pattern matching itself only, ASCII punctuation written ``\\xhh``."""
    return "".join(c if c.isalnum() or not c.isascii() else f"\\x{ord(c):02x}" for c in text)


def _consumed(pattern: str) -> str:
    """A token pattern as Rust's engine takes it: a leading look-behind read as text.

    Whether a text holds a match is the same either way; only where it starts moves.
    ``(?ai:`` becomes ``(?i:``: Unicode case folding only finds more.
    """
    return pattern.replace("(?<=", "(?:").replace("(?ai:", "(?i:")


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {}


def class_defaults(model: type[BaseModel]) -> dict[str, Any]:
    """The default of each field of ``model`` that has one, as ``exclude_defaults`` sees it.

    The fast path serialises models without their defaults, so the walk skips them too,
    or the two would disagree (a configured secret "medi" inside a default "medium").
    A factory is called once per class; one that takes the validated data is left out.
    """
    found = _DEFAULTS.get(model)
    if found is None:
        found = {}
        for name, info in model.model_fields.items():
            if info.default is not PydanticUndefined:
                found[name] = info.default
            elif info.default_factory is not None and not info.default_factory_takes_validated_data:
                found[name] = info.default_factory()  # type: ignore[call-arg]  # takes no data
        _DEFAULTS[model] = found
    return found
