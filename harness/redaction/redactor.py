"""The redactor: removes tokens and keys from contexts, outputs, logs and error texts.

It rewrites values, it does not validate them: a context comes back as the same
type with secrets masked wherever they sit (model fields, mapping keys and values,
lists, tuples, sets, and text inside text such as JSON or headers embedded in a
string). Objects with nothing to mask come back as the very same objects: a clean
context costs one JSON serialisation (in Rust) and a regex scan, no Python walk and
no copies. What secrets look like is :mod:`harness.redaction.patterns`; the
scan over JSON bytes is :mod:`harness.redaction.json_scan`.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Final, NamedTuple, TypeVar, final

import pydantic_core
from pydantic import BaseModel

from harness.redaction.errors import RedactionError
from harness.redaction.json_scan import JsonDetector, class_defaults, field_key
from harness.redaction.patterns import (
    BASIC,
    BEARER,
    KEYED_VALUE,
    TOKEN_PATTERNS,
    URL_CREDENTIALS,
    is_basic_credential,
)

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

MASK: Final = "[REDACTED]"

DEFAULT_PATTERNS: Final = TOKEN_PATTERNS

MIN_SECRET_CHARS: Final = 4
"""Shorter configured secrets are ignored, silently: masking every "ab" or "1" would shred
ordinary text, and a warning would itself tell a log reader that a short secret exists."""

DEFAULT_FIELDS: Final[frozenset[str]] = frozenset(
    {
        "authorization",
        "proxy_authorization",
        "x_api_key",
        "api_key",
        "apikey",
        "access_token",
        "refresh_token",
        "client_secret",
        "password",
        "secret",
        "token",
        "private_key",
        "cookie",
        "set_cookie",
        "signing_secret",
        "bot_token",
        "app_token",
    }
)

_FLAG_LETTERS: Final = (
    (re.IGNORECASE, "i"),
    (re.MULTILINE, "m"),
    (re.DOTALL, "s"),
    (re.VERBOSE, "x"),
    (re.ASCII, "a"),
)


class _Rule(NamedTuple):
    """A text pattern: the group ``secret`` (or the whole match) goes, when ``check`` agrees."""

    pattern: re.Pattern[str]
    group: str | int = 0
    check: Callable[[str], bool] | None = None


def _source(pattern: str | re.Pattern[str]) -> str:
    if isinstance(pattern, str):
        re.compile(pattern)  # fail here, with the user's pattern in the traceback
        return pattern
    # A compiled pattern's flags would be lost in the combined regex: keep them inline.
    letters = "".join(letter for flag, letter in _FLAG_LETTERS if pattern.flags & flag)
    return f"(?{letters}:{pattern.pattern})" if letters else pattern.pattern


@final
class Redactor:
    """Masks secrets in any value built of models, mappings, sequences and strings.

    Args:
        patterns: extra regular expressions whose matches are masked. One the fast
            path cannot test over JSON bytes (see
            :func:`~harness.redaction.patterns.is_json_safe`) makes every value
            take the full walk.
        fields: extra field or key names whose values are masked whole
            (ASCII case-insensitive, ``-`` and ``_`` alike).
        secrets: literal values masked wherever they appear, whatever their shape
            (keys, tokens from the settings); see :meth:`add_secret`.
        defaults: include :data:`DEFAULT_PATTERNS`, :data:`DEFAULT_FIELDS` and the
            keyed-value, bearer, basic and URL-credential rules.
        mask: the text put in place of a secret.
    """

    def __init__(
        self,
        patterns: Iterable[str | re.Pattern[str]] = (),
        fields: Iterable[str] = (),
        *,
        secrets: Iterable[str] = (),
        defaults: bool = True,
        mask: str = MASK,
    ) -> None:
        self.mask = mask
        self._defaults = defaults
        self._user: list[str] = [_source(pattern) for pattern in patterns]
        self._fields: set[str] = set(DEFAULT_FIELDS) if defaults else set()
        self._fields.update(field_key(name) for name in fields)
        self._secrets: set[str] = {s for s in secrets if len(s) >= MIN_SECRET_CHARS}
        self._compile()

    def add_pattern(self, pattern: str | re.Pattern[str]) -> None:
        """Mask every match of ``pattern`` from now on."""
        self._user.append(_source(pattern))
        try:
            self._compile()
        except re.error:  # e.g. a group name another pattern uses: leave the redactor working
            self._user.pop()
            self._compile()
            raise

    def add_field(self, name: str) -> None:
        """Mask the whole value of any field or mapping key called ``name``."""
        self._fields.add(field_key(name))
        self._compile()

    def add_secret(self, value: str) -> None:
        """Mask every occurrence of the literal ``value`` from now on, in text and keys.

        Values shorter than :data:`MIN_SECRET_CHARS` are ignored (see there why).
        Spaces, quotes, backslashes and any Unicode are fine, and the fast path stays on.
        """
        if len(value) >= MIN_SECRET_CHARS and value not in self._secrets:
            self._secrets.add(value)
            self._compile()

    def _compile(self) -> None:
        rules: list[_Rule] = []
        if self._secrets:  # longest first, so a secret holding another goes whole
            ordered = sorted(self._secrets, key=len, reverse=True)
            rules.append(_Rule(re.compile("|".join(map(re.escape, ordered)))))
        whole = [*DEFAULT_PATTERNS, *self._user] if self._defaults else list(self._user)
        if whole:
            rules.append(_Rule(re.compile("|".join(f"(?:{p})" for p in whole))))
        if self._defaults:
            rules += [
                _Rule(re.compile(KEYED_VALUE.format(mask=re.escape(self.mask))), "secret"),
                _Rule(re.compile(BEARER), "secret"),
                _Rule(re.compile(BASIC), "secret", is_basic_credential),
                _Rule(re.compile(URL_CREDENTIALS), "secret"),
            ]
        self._rules = tuple(rules)
        # One search tells a clean text from one that needs the rules (named groups clash).
        union = "|".join(f"(?:{rule.pattern.pattern})" for rule in rules)
        union = union.replace("(?P<secret>", "(?:")
        self._detect_text = re.compile(union) if rules else None
        self._detect_json = JsonDetector.build(
            defaults=self._defaults, fields=self._fields, secrets=self._secrets, user=self._user
        )

    def redact_text(self, text: str) -> str:
        """``text`` with every secret it contains masked (the same object when there is none)."""
        if not text or self._detect_text is None or self._detect_text.search(text) is None:
            return text
        spans: list[tuple[int, int]] = []
        for pattern, group, check in self._rules:
            # Overlapping matches too (each search restarts one past the last match's start):
            # a keyed value may swallow "key=basic <value>" up to the blank and leave the rest.
            match = pattern.search(text)
            while match is not None:
                start, end = match.span(group)
                if start < end and (check is None or check(match[group])):
                    spans.append((start, end))
                match = pattern.search(text, match.start() + 1)
        if not spans:
            return text
        # Every rule ran over the original text and overlaps merge, so no rule's mask can
        # hide a secret from another (a configured secret inside a keyed value, say).
        spans.sort()
        parts: list[str] = []
        done = 0
        start, end = spans[0]
        for next_start, next_end in spans[1:]:
            if next_start <= end:
                end = max(end, next_end)
                continue
            parts += (text[done:start], self.mask)
            done, start, end = end, next_start, next_end
        parts += (text[done:start], self.mask, text[end:])
        return "".join(parts)

    def is_secret_field(self, name: str) -> bool:
        """Whether values under ``name`` are masked whole."""
        return field_key(name) in self._fields

    def redact(self, value: T) -> T:
        """``value`` with secrets masked; unchanged parts are returned as the same objects.

        ``bytes`` are read as UTF-8 (undecodable bytes kept as they are), dataclasses are
        rebuilt with their fields masked, and an ``Enum`` member whose value holds a
        secret is replaced by its masked value: masked in another type beats unmasked.

        Raises:
            RedactionError: the value is cyclic (or nested past the recursion limit), so
                no copy of it can be proved clean; nothing of it may leave (issue 26).
        """
        if isinstance(value, str):
            return self.redact_text(value)  # type: ignore[return-value]  # str in, str out
        if isinstance(value, BaseModel):
            return self.redact_model(value)
        if self._detect_json is not None and value is not None:
            try:
                text = pydantic_core.to_json(value)
            except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
                pass  # not JSON-shaped: the walk below inspects it piece by piece
            else:
                if self._detect_json.is_clean(text):
                    return value
        return self._walked(value)

    def redact_model(self, model: M) -> M:
        """:meth:`redact` for a pydantic model (a hook context): the same answer, asked nothing.

        The hooks scrub every context with it, once where it enters an operation and once
        per replacement, so it is the fixed cost of a dispatch (issue 27): one JSON
        serialisation in Rust and a byte scan for a clean model.
        """
        detect = self._detect_json
        if detect is not None:
            try:
                # Defaults are the class's own harmless values (the walk skips them too);
                # leaving them out halves the text. Field names, not aliases, as the walk sees.
                text = model.__pydantic_serializer__.to_json(
                    model, exclude_defaults=True, by_alias=False
                )
            except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
                pass  # not JSON-shaped: the walk inspects it piece by piece
            else:
                if detect.is_clean(text):
                    return model
        return self._walked(model)

    def _walked(self, value: T) -> T:
        try:
            return self._walk(value)  # type: ignore[no-any-return]  # _walk preserves the type
        except RecursionError:
            pass  # raised outside the handler: no traceback thousands of frames deep
        raise RedactionError(type(value).__name__)

    def _walk(self, value: Any) -> Any:  # noqa: ANN401  # any value built of models, maps, lists
        if isinstance(value, str):
            return self.redact_text(value)
        if value is None or isinstance(value, int | float):  # most leaves: nothing to mask
            return value
        if isinstance(value, BaseModel):
            return self._model(value)
        if isinstance(value, dict):
            return self._mapping(value)
        if isinstance(value, list | tuple | set | frozenset):
            if not value:
                return value
            items = [self._walk(item) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        if isinstance(value, bytes | bytearray):
            text = bytes(value).decode("utf-8", "surrogateescape")
            masked = self.redact_text(text)
            return (
                value if masked is text else type(value)(masked.encode("utf-8", "surrogateescape"))
            )
        if isinstance(value, enum.Enum):
            inner = self._walk(value.value)
            return value if inner is value.value else inner
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self._dataclass(value)
        return value

    def _dataclass(self, value: Any) -> Any:  # noqa: ANN401  # any dataclass instance
        updates = {}
        for field in dataclasses.fields(value):
            old = getattr(value, field.name)
            new = self._field_value(field.name, old)
            if new is not old:
                updates[field.name] = new
        if not updates:
            return value
        # A copy, not dataclasses.replace: that would reset init=False fields to defaults.
        rebuilt = copy.copy(value)
        for name, new in updates.items():
            object.__setattr__(rebuilt, name, new)  # frozen ones too: it is our own copy
        return rebuilt

    def _model(self, model: BaseModel) -> BaseModel:
        updates: dict[str, Any] = {}
        defaults = class_defaults(type(model))
        for name, old in model.__dict__.items():
            if old is None or old == "" or isinstance(old, int | float | bool):
                continue
            if name in defaults and _equal(old, defaults[name]):
                continue  # the fast path's JSON leaves defaults out: so must the walk
            new = self._field_value(name, old)
            if new is not old:
                updates[name] = new
        for name, old in (model.__pydantic_extra__ or {}).items():
            new = self._field_value(name, old)
            if new is not old:
                updates[name] = new  # model_copy puts unknown names back among the extras
        return model.model_copy(update=updates) if updates else model

    def _field_value(self, name: str, old: object) -> object:
        if isinstance(old, str) and field_key(name) in self._fields:
            return self.mask
        return self._walk(old)

    def _mapping(self, mapping: dict[Any, Any]) -> dict[Any, Any]:
        if not mapping:
            return mapping
        items: list[tuple[Any, Any, Any]] = []
        changed = renamed = False
        for key, old in mapping.items():
            new_key, whole = key, False
            if isinstance(key, str):
                new_key = self.redact_text(key)
                whole = old not in (None, "") and field_key(key) in self._fields
            new = self.mask if whole else self._walk(old)
            renamed = renamed or new_key is not key
            changed = changed or new is not old
            items.append((key, new_key, new))
        if not (changed or renamed):
            return mapping
        out = _rekeyed(items) if renamed else {key: new for key, _, new in items}
        return _same_kind(mapping, out)


def _rekeyed(items: list[tuple[Any, Any, Any]]) -> dict[Any, Any]:
    """The mapping under its masked keys; keys that collide get ``#2``, ``#3`` (issue 9).

    Keys that were not masked keep their names; a masked one steps around them.
    """
    kept = {key for key, new_key, _ in items if new_key is key}
    out: dict[Any, Any] = {}
    for key, new_key, value in items:
        if new_key is not key:
            candidate, n = new_key, 1
            while candidate in out or candidate in kept:
                n += 1
                candidate = f"{new_key}#{n}"
            new_key = candidate
        out[new_key] = value
    return out


def _same_kind(mapping: dict[Any, Any], out: dict[Any, Any]) -> dict[Any, Any]:
    """``out`` as the dict subclass ``mapping`` was (contexts hold a ``FrozenDict``)."""
    kind = type(mapping)
    if kind is dict:
        return out
    try:
        if isinstance(mapping, defaultdict):
            return type(mapping)(mapping.default_factory, out)
        return kind(out)
    except TypeError:
        return out  # a subclass we cannot rebuild: masked as a plain dict beats unmasked


def _equal(value: object, default: object) -> bool:
    try:
        return bool(value == default)
    except Exception:  # an odd __eq__ (arrays): not provably the default, so walk it
        return False
