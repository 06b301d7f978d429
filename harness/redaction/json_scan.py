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
    JSON_WORD_END,
    JSON_WORD_START,
    KEY_WORDS,
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
    """The first test of :meth:`JsonDetector.is_clean`, run by Rust's regex engine.

    The gate is one alternation of short literals (:data:`~harness.redaction.patterns.GATE`,
    field names, configured secrets) over the lowered JSON, and every clean value is
    searched through all of it: CPython's engine tries each position whose byte starts an
    alternative, Rust's looks for all the literals at once, five times faster on a context
    (issue 27). pydantic-core is that engine's one door in this environment: a string
    pattern, in a union whose two branches tell a hit (bytes) from a miss (str) without an
    exception, and bytes that are not UTF-8 fail both branches, so they are never clean.
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
    words: re.Pattern[bytes] | None
    tokens: re.Pattern[bytes] | None
    basic: re.Pattern[bytes] | None
    url: re.Pattern[bytes] | None
    secrets: re.Pattern[bytes] | None
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
            lowered = escaped.lower().decode()
            words.append(re.escape(lowered).replace("_", "[_-]"))
            if not (defaults and any(known in name for known in GATE_WORDS)):
                gate.append("[_-]".join(map(_literal, lowered.split("_"))))
        forms = {form for s in secrets for form in (_json_escaped(s), _utf8(s)) if form}
        # In the gate too (lowered, as it reads): one scan for all, not a second one per value.
        gate += [_literal(form.lower().decode()) for form in forms]
        compiled = Gate.build(gate) if gate else None
        if gate and compiled is None:
            return None  # no gate to trust: every value takes the walk
        return cls(
            gate=compiled,
            words=re.compile(
                JSON_WORD_START + b"(?:" + "|".join(words).encode() + b")" + JSON_WORD_END
            )
            if words
            else None,
            tokens=_compiled([f"(?:{p})" for p in TOKEN_PATTERNS]) if defaults else None,
            basic=re.compile(JSON_BASIC) if defaults else None,
            url=re.compile(URL_CREDENTIALS.encode()) if defaults else None,
            secrets=re.compile(b"|".join(map(re.escape, sorted(forms, key=len, reverse=True))))
            if forms
            else None,
            user=tuple(re.compile(pattern.encode()) for pattern in user),
        )

    def is_clean(self, text: bytes) -> bool:
        """Whether the value whose JSON is ``text`` holds nothing the redactor would mask."""
        if self.gate is not None:
            lowered = text.lower()
            if self.gate.hits(lowered):
                if self.words is not None and self.words.search(lowered) is not None:
                    return False
                if self.tokens is not None and self.tokens.search(text) is not None:
                    return False
                if self.basic is not None and any(
                    is_basic_credential(m["secret"]) for m in self.basic.finditer(text)
                ):
                    return False
                if self.secrets is not None and self.secrets.search(text) is not None:
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


def _compiled(parts: list[str]) -> re.Pattern[bytes] | None:
    return re.compile("|".join(sorted(parts, key=len, reverse=True)).encode()) if parts else None


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
