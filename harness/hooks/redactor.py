"""The redactor: removes tokens and keys from contexts, outputs, logs and error texts.

It rewrites values, it does not validate them: a context comes back as the same
type with secrets masked wherever they sit (model fields, dicts, lists, tuples,
and text inside text such as JSON or headers embedded in a string). Objects with
nothing to mask come back as the very same objects: a clean context costs one JSON
serialisation (in Rust) and a regex scan, no Python walk and no copies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final, NamedTuple, TypeVar, final

import pydantic_core
from pydantic import BaseModel

T = TypeVar("T")

MASK: Final = "[REDACTED]"

DEFAULT_PATTERNS: Final[tuple[str, ...]] = (
    r"xox[abprse]-[A-Za-z0-9-]{6,}",  # Slack bot, user, app-level, refresh and config tokens
    r"xapp-[A-Za-z0-9-]{6,}",  # Slack app-level token (Socket Mode)
    r"sk-ant-[A-Za-z0-9_-]{16,}",  # Anthropic
    r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",  # OpenAI
    r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}",  # GitHub tokens
    r"github_pat_[A-Za-z0-9_]{20,}",  # GitHub fine-grained tokens
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}",  # AWS access key ids
    r"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}",  # JWTs
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
)

# "key: value" pairs inside text (headers, JSON, query strings, env files): the value goes.
_KEYED_VALUE: Final = (
    r"(?P<key>\b(?i:authorization|proxy-authorization|x-api-key|api[_-]?key|access[_-]?token"
    r"|refresh[_-]?token|client[_-]?secret|aws[_-]?secret[_-]?access[_-]?key|password"
    r"|passwd|secret|token)\b)"
    r"(?P<sep>{q}{ws}*[:=]{ws}*{q})"
    r"(?!(?:(?i:bearer|basic|token|bot){ws}+)?{mask})"
    r"(?P<scheme>(?i:bearer|basic|token|bot){ws}+)?"
    r"(?P<value>[^\s\"'&,;}}\]]+)"
)
_BEARER: Final = r"\b(?P<bearer>(?i:bearer)){ws}+[A-Za-z0-9._~+/=-]{{8,}}"
_RAW = {"ws": r"\s", "q": r"[\"']?"}
# Lower-case text found in every match of a default pattern, keyed value, bearer token or
# default secret field. A case-sensitive alternation over lowered text is the fastest
# gate CPython's regex engine offers (a case-insensitive one is four times slower).
_GATE: Final = (
    r"a(?:pi|uth|kia|sia|gpa|ida|roa|npa)|token|secret|passw|bearer|cookie|private"
    r"|x(?:ox|app-)|sk-|gh[pousr]_|github_pat_|eyj|-----begin"
)  # hand-factored: CPython's regex engine does not factor alternations itself

_GATE_WORDS: Final = ("api", "auth", "token", "secret", "passw", "bearer", "cookie", "private")

# Whole words found in every keyed value and bearer token the patterns above mask.
_KEY_WORDS: Final = (
    "authorization", "x-api-key", "api_key", "api-key", "apikey", "access_token",
    "access-token", "accesstoken", "refresh_token", "refresh-token", "refreshtoken",
    "client_secret", "client-secret", "clientsecret", "aws_secret_access_key",
    "aws-secret-access-key", "password", "passwd", "secret", "token", "bearer",
)  # fmt: skip
# A user pattern with any of these could read differently in JSON text: no fast path then.
_JSON_UNSAFE = re.compile(r"\\[sSnrtbfu\\\"']|[\s\"']")

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


def _field_key(name: str) -> str:
    return name.lower().replace("-", "_")


class _JsonDetector(NamedTuple):
    gate: re.Pattern[bytes] | None
    words: re.Pattern[bytes] | None
    defaults: tuple[re.Pattern[bytes], ...]
    user: tuple[re.Pattern[bytes], ...]


@final
class Redactor:
    """Masks secrets in any value built of models, mappings, sequences and strings.

    Args:
        patterns: extra regular expressions whose matches are masked.
        fields: extra field or key names whose values are masked whole
            (case-insensitive, ``-`` and ``_`` alike).
        defaults: include :data:`DEFAULT_PATTERNS` and :data:`DEFAULT_FIELDS`.
        mask: the text put in place of a secret.
    """

    def __init__(
        self,
        patterns: Iterable[str | re.Pattern[str]] = (),
        fields: Iterable[str] = (),
        *,
        defaults: bool = True,
        mask: str = MASK,
    ) -> None:
        self.mask = mask
        self._patterns: list[str] = list(DEFAULT_PATTERNS) if defaults else []
        self._fields: set[str] = set(DEFAULT_FIELDS) if defaults else set()
        self._defaults = defaults
        for pattern in patterns:
            self.add_pattern(pattern)
        for name in fields:
            self.add_field(name)
        self._compile()

    def add_pattern(self, pattern: str | re.Pattern[str]) -> None:
        """Mask every match of ``pattern`` from now on."""
        source = pattern.pattern if isinstance(pattern, re.Pattern) else pattern
        re.compile(source)  # fail here, with the user's pattern in the traceback
        self._patterns.append(source)
        self._compile()

    def add_field(self, name: str) -> None:
        """Mask the whole value of any field or mapping key called ``name``."""
        self._fields.add(_field_key(name))
        self._compile()

    def _compile(self) -> None:
        mask = re.escape(self.mask)
        parts = list(self._patterns)
        if self._defaults:
            parts += [_KEYED_VALUE.format(mask=mask, **_RAW), _BEARER.format(**_RAW)]
        self._detect_text = re.compile("|".join(f"(?:{p})" for p in parts)) if parts else None
        self._combined = (
            re.compile("|".join(f"(?:{p})" for p in self._patterns)) if self._patterns else None
        )
        self._keyed_value = re.compile(_KEYED_VALUE.format(mask=mask, **_RAW))
        self._bearer = re.compile(_BEARER.format(**_RAW))
        self._detect_json = self._json_detector()

    def _json_detector(self) -> _JsonDetector | None:
        """Cheap tests over a value's JSON text that hit on anything :meth:`_walk` would mask.

        A miss proves the value clean, so it is returned as is without a Python walk; a
        hit (maybe a false one) takes the walk. One gate regex looks for the keywords of
        keyed values, bearer tokens and secret fields and for the literal prefixes of the
        default patterns; only when it hits do the exact tests run (a whole-word regex,
        then each pattern). A user pattern that could read differently in JSON's escaped
        text disables the shortcut instead of risking a miss.
        """
        user = self._patterns[len(DEFAULT_PATTERNS) :] if self._defaults else self._patterns
        if any(_JSON_UNSAFE.search(p) for p in user):
            return None
        words = set(_KEY_WORDS) if self._defaults else set()
        gate = {_GATE} if self._defaults else set()
        for name in self._fields:
            words |= {name, name.replace("_", "-")}
            for variant in {name.lower(), name.lower().replace("_", "-")}:
                if not any(word in variant for word in _GATE_WORDS):
                    gate.add(re.escape(variant))
        alternation = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        return _JsonDetector(
            gate=re.compile("|".join(sorted(gate, key=len, reverse=True)).encode())
            if gate
            else None,
            words=re.compile(
                rf"(?i)(?<![a-z0-9_])(?:{alternation})(?![a-z0-9_])".encode()
            ) if words else None,
            defaults=tuple(re.compile(p.encode()) for p in DEFAULT_PATTERNS)
            if self._defaults else (),
            user=tuple(re.compile(p.encode()) for p in user),
        )  # fmt: skip

    def _json_is_clean(self, text: bytes) -> bool:
        detector = self._detect_json
        assert detector is not None  # callers check first
        if detector.gate is not None and detector.gate.search(text.lower()) is not None:
            if detector.words is not None and detector.words.search(text) is not None:
                return False
            for pattern in detector.defaults:
                if pattern.search(text) is not None:
                    return False
        for pattern in detector.user:
            if pattern.search(text) is not None:
                return False
        return True

    def redact_text(self, text: str) -> str:
        """``text`` with every secret it contains masked."""
        if not text or self._detect_text is None or not self._detect_text.search(text):
            return text
        mask = self.mask
        if self._defaults:
            text = self._bearer.sub(lambda m: f"{m.group('bearer')} {mask}", text)
            text = self._keyed_value.sub(
                lambda m: f"{m.group('key')}{m.group('sep')}{m.group('scheme') or ''}{mask}", text
            )
        if self._combined is not None:
            text = self._combined.sub(mask, text)
        return text

    def is_secret_field(self, name: str) -> bool:
        """Whether values under ``name`` are masked whole."""
        return _field_key(name) in self._fields

    def redact(self, value: T) -> T:
        """``value`` with secrets masked; unchanged parts are returned as the same objects."""
        if isinstance(value, str):
            return self.redact_text(value)  # type: ignore[return-value]  # str in, str out
        if self._detect_json is not None and value is not None:
            try:
                # Defaults are the class's own harmless values; leaving them out halves the text.
                text = (
                    value.__pydantic_serializer__.to_json(value, exclude_defaults=True)
                    if isinstance(value, BaseModel)
                    else pydantic_core.to_json(value)
                )
            except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
                pass  # not JSON-shaped: the walk below inspects it piece by piece
            else:
                if self._json_is_clean(text):
                    return value
        return self._walk(value)  # type: ignore[no-any-return]  # _walk preserves the type

    def _walk(self, value: Any) -> Any:  # noqa: ANN401  # any value built of models, maps, lists
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, BaseModel):
            return self._model(value)
        if isinstance(value, dict):
            return self._mapping(value)
        if isinstance(value, list | tuple):
            if not value:
                return value
            items = [self._walk(item) for item in value]
            if all(new is old for new, old in zip(items, value, strict=True)):
                return value
            return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)
        return value

    def _model(self, model: BaseModel) -> BaseModel:
        updates: dict[str, Any] = {}
        fields = self._fields
        for name, old in model.__dict__.items():
            if old is None or old == "" or isinstance(old, int | float | bool):
                continue
            if isinstance(old, str) and _field_key(name) in fields:
                new: Any = self.mask
            else:
                new = self._walk(old)
            if new is not old:
                updates[name] = new
        return model.model_copy(update=updates) if updates else model

    def _mapping(self, mapping: dict[Any, Any]) -> dict[Any, Any]:
        if not mapping:
            return mapping
        out: dict[Any, Any] = {}
        changed = False
        fields = self._fields
        for key, old in mapping.items():
            if isinstance(key, str) and old not in (None, "") and _field_key(key) in fields:
                new: Any = self.mask
            else:
                new = self._walk(old)
            changed = changed or new is not old
            out[key] = new
        return out if changed else mapping
