"""Start-up refusals: why a process will not start, said in one line that names the setting.

The worker (:mod:`harness.temporal.worker`) and the bot (:mod:`bot.__main__`) both
read their settings from the environment; a wrong value there must stop them with
one line naming the variable and the fix and exit status :data:`EXIT_STATUS`, never
a traceback (issue 11). This module words that line; each process writes it where
its start-up messages go. It knows settings classes, not the processes.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from typing import Any, Final, TypeVar, get_origin

from pydantic import AliasChoices, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsError

from harness.errors import ConfigurationError

EXIT_STATUS: Final = 2
"""What a process exits with when its configuration forbids starting (``EX_USAGE``-like)."""

S = TypeVar("S", bound=BaseSettings)

# pydantic-settings words a value it cannot decode (bad JSON) only this way.
_UNPARSABLE: Final = re.compile(
    r'error (?:parsing|getting) value for field "(\w+)" from source "(\w+)"'
)
_VALUE_ERROR: Final = "Value error, "
QUOTES_STRIPPED: Final = (
    "; under make run, honcho strips the quotes of a .env value that is not quoted as a "
    "whole: put it in single quotes there"
)
"""Said of JSON that lost its quotes: ``NAME=["a", "b"]`` in ``.env`` reaches the process as
``[a,b]`` under honcho (issue 26); ``NAME='["a", "b"]'`` arrives intact."""


class SettingsInvalid(ConfigurationError):
    """The environment (or ``.env``) holds a value a settings class cannot take.

    Args:
        problems: one phrase per wrong variable, each naming it.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


def load_settings(cls: type[S], **values: Any) -> S:  # noqa: ANN401  # forwarded to the settings class
    """``cls(**values)``, with a wrong environment variable raised as :class:`SettingsInvalid`.

    Raises:
        SettingsInvalid: naming each variable, and for JSON-valued ones that they
            must be JSON (with an example).
    """
    try:
        return cls(**values)
    except SettingsError as error:
        raise SettingsInvalid([_undecodable(cls, error)]) from None
    except ValidationError as error:
        raise SettingsInvalid(_invalid(cls, error)) from None


def one_line(error: BaseException) -> str:
    """What a start-up refusal says for ``error``: its user-facing sentence, on one line.

    A multi-line message (a hooks file's problems, one per line) is joined with ``; ``.
    """
    said = getattr(error, "user_message", "") or str(error) or type(error).__name__
    lines = [line.strip().removeprefix("- ").strip() for line in str(said).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        return type(error).__name__
    head, rest = lines[0], lines[1:]
    if rest and head.endswith(":"):
        return f"{head} {'; '.join(rest)}"
    return "; ".join(lines)


def variable(cls: type[BaseSettings], key: str) -> str:
    """The environment variable that sets field ``key`` (a field name or one of its aliases).

    Of several names (``SLACK_BOT_TOKEN`` or ``HARNESS_SLACK_BOT_TOKEN``), the one set
    in the environment; else the first.
    """
    name, info = _field(cls, key)
    if info is None:
        return key if key.isupper() else f"{_prefix(cls)}{key}".upper()
    names = _names(cls, name, info)
    environment = {k.upper() for k in os.environ}
    return next((n for n in names if n.upper() in environment), names[0])


def _undecodable(cls: type[BaseSettings], error: SettingsError) -> str:
    match = _UNPARSABLE.search(str(error))
    if match is None:
        return one_line(error)
    field, source = match.groups()
    where = " (in .env)" if source.startswith("DotEnv") else ""
    cause = error.__cause__
    why = f" ({_first_line(cause)})" if cause is not None else ""
    name = variable(cls, field)
    raw = os.environ.get(name, "").strip()
    stripped = QUOTES_STRIPPED if raw[:1] in ("[", "{") and '"' not in raw else ""
    return f"{name}{where} must be JSON{why}, e.g. {name}={_example(cls, field)}{stripped}"


def _invalid(cls: type[BaseSettings], error: ValidationError) -> list[str]:
    problems: dict[str, str] = {}
    for item in error.errors(include_url=False):
        loc = item["loc"]
        message = str(item["msg"]).removeprefix(_VALUE_ERROR)
        if not loc:  # a check across fields: its message names what to set
            problems.setdefault(message, message)
            continue
        name = variable(cls, str(loc[0]))
        if name in problems:  # a union's branches each complain: the first says enough
            continue
        at = f" (at {loc[1]!r})" if len(loc) > 1 else ""
        hint = (
            f"; JSON, e.g. {name}={_example(cls, str(loc[0]))}"
            if _is_json(cls, str(loc[0]))
            else ""
        )
        problems[name] = f"{name}{at}: {message}{hint}"
    return list(problems.values())


def _field(cls: type[BaseSettings], key: str) -> tuple[str, FieldInfo | None]:
    fields: Mapping[str, FieldInfo] = cls.model_fields
    if key in fields:
        return key, fields[key]
    for name, info in fields.items():
        if key.upper() in (n.upper() for n in _aliases(info)):
            return name, info
    return key, None


def _aliases(info: FieldInfo) -> list[str]:
    alias = info.validation_alias
    if isinstance(alias, str):
        return [alias]
    if isinstance(alias, AliasChoices):
        return [choice for choice in alias.choices if isinstance(choice, str)]
    return []


def _names(cls: type[BaseSettings], name: str, info: FieldInfo) -> list[str]:
    return [a.upper() for a in _aliases(info)] or [f"{_prefix(cls)}{name}".upper()]


def _prefix(cls: type[BaseSettings]) -> str:
    return str(cls.model_config.get("env_prefix", ""))


def _is_json(cls: type[BaseSettings], key: str) -> bool:
    _, info = _field(cls, key)
    return info is not None and get_origin(info.annotation) in (list, dict, tuple, set)


def _example(cls: type[BaseSettings], key: str) -> str:
    """The field's first documented example as JSON, else one of its shape."""
    _, info = _field(cls, key)
    if info is not None and info.examples:
        return f"'{json.dumps(info.examples[0])}'"
    origin = get_origin(info.annotation) if info is not None else None
    return '\'{"name": "value"}\'' if origin is dict else "'[\"value\"]'"


def _first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [type(error).__name__])[0]
