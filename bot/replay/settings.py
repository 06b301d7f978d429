"""The recording's settings on replay: what the replay's stack runs with, and what differs.

The replay's stack gets every setting the recording carries (:mod:`bot.recording.settings`),
except where your environment sets one: yours wins, as your hooks file does, so a replay can
try a change of settings on recorded traffic. The settings the replayed bot records in its
own header are then compared with the recording's, as an exchange is: one that differs is a
``DIFF`` (exit status 1) showing both values, never a silent "the same" (issue 28). What a
recording does not carry (credentials, model URLs, the hooks file) is taken from your
environment and named as not compared whenever either side had it set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from pydantic import SecretStr

from bot.recording.format import Header
from bot.recording.settings import (
    CARRIED,
    FIELDS,
    NOT_CARRIED,
    as_environment,
    is_set,
    variable,
)
from harness.config import Settings


@dataclass(frozen=True)
class SettingDiff:
    """A carried setting the replay ran with another value than the recording."""

    name: str
    """The variable, ``HARNESS_MODELS``."""
    recorded: Any
    replayed: Any


def stack_environment(header: Header, yours: Settings) -> dict[str, str]:
    """The replay's stack's ``HARNESS_*`` variables: the recording's carried settings, yours
    where you set one, and those of yours a recording does not carry (keys, URLs, the hooks file).

    Args:
        header: the recording's header (an older one carries no settings: yours and defaults).
        yours: the settings of the replay's own environment (and ``.env``).
    """
    recorded = {
        name: value
        for name, value in (header.settings or {}).items()
        if FIELDS.get(name) in CARRIED  # a setting this release no longer has: named, not sent
    }
    mine = yours.model_dump(mode="json", include=yours.model_fields_set & CARRIED)
    env = as_environment(recorded | {variable(name): value for name, value in mine.items()})
    for name in sorted(NOT_CARRIED):
        if is_set(yours, name):
            env[variable(name)] = _text(getattr(yours, name))
    return env


def _text(value: object) -> str:
    """A setting's value as its variable holds it (a path absolute: the stack runs elsewhere)."""
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, Path):
        return str(value.resolve())
    return value if isinstance(value, str) else json.dumps(value)


def compare_settings(recorded: Header, replayed: Header) -> tuple[list[SettingDiff], list[str]]:
    """The carried settings that differ, and a note for each setting not compared.

    Args:
        recorded: the recording's header.
        replayed: the header the replayed bot wrote (the settings it really ran with).
    """
    if recorded.settings is None:
        return [], [
            "the recording carries no settings (an older release made it): the replay ran "
            "with your environment's and the defaults, not compared"
        ]
    if replayed.settings is None:
        return [], ["the replayed bot records no settings (an older release): not compared"]
    diffs, notes = [], []
    for name in sorted(recorded.settings.keys() | replayed.settings.keys()):
        if name not in replayed.settings:
            notes.append(f"{name} is in the recording, but this release has no such setting")
        elif name not in recorded.settings:
            notes.append(f"{name} is not in the recording (an older release made it)")
        elif recorded.settings[name] != replayed.settings[name]:
            diffs.append(SettingDiff(name, recorded.settings[name], replayed.settings[name]))
    for name in sorted({*recorded.unrecorded, *replayed.unrecorded}):
        why = NOT_CARRIED.get(FIELDS.get(name, ""), "not recorded")
        before = "set" if name in recorded.unrecorded else "unset"
        now = "set" if name in replayed.unrecorded else "unset"
        notes.append(f"{name} is not compared ({why}): recorded {before}, replayed {now}")
    return diffs, notes


def report_settings(diffs: Sequence[SettingDiff], notes: Sequence[str], out: TextIO) -> None:
    """Print a ``DIFF`` with both values for each setting that differs, then the notes."""
    for diff in diffs:
        print(f"DIFF  setting {diff.name}", file=out)
        print(f"      - {json.dumps(diff.recorded, ensure_ascii=False)}", file=out)
        print(f"      + {json.dumps(diff.replayed, ensure_ascii=False)}", file=out)
    for note in notes:
        print(f"note: {note}", file=out)
