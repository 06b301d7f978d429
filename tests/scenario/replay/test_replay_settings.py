"""A recording carries the settings that shape answers, and its replay runs with them (issue 28).

A real stack records a session made with three models (``HARNESS_MODELS``) and a default
one; ``python -m bot.replay`` starts fresh stacks of its own from the file alone: with a
clean environment every exchange and every setting is the same; with ``HARNESS_MODELS``
changed in the replay's environment, the setting is a DIFF showing both values (exit 1) and
so are the exchanges that show the models; a model URL the recording does not carry is named
as not compared. Everything is a subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.recording import load
from bot.testing.stack import running_stack

from .test_record_replay import _finished, _say, _start_replay

MODELS = ["offline/haiku", "offline/sonnet", "offline/opus"]
RECORDED_ENV = {
    "HARNESS_MODELS": json.dumps(MODELS),
    "HARNESS_DEFAULT_MODEL": "offline/sonnet",
    "HARNESS_AGENT_MAX_TURNS": "3",
}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A mention, ``/model`` and ``/task status``, recorded by a stack with three models."""
    path = tmp_path_factory.mktemp("recorded") / "models.jsonl"
    with running_stack(record=path, env=RECORDED_ENV) as stack:
        _say(stack, "hello there")
        assert "`offline/haiku`, `offline/sonnet`, `offline/opus`" in _say(stack, "/model")
        assert "offline/sonnet" in _say(stack, "/task status")
        payload_key = stack.payload_key
    text = path.read_text()
    assert payload_key not in text and stack.signing_secret not in text
    return path


def test_the_recording_carries_its_settings_and_replays_the_same_and_a_change_is_a_diff(
    recorded: Path,
):
    header = load(recorded).header
    assert header.settings is not None
    assert header.settings["HARNESS_MODELS"] == MODELS
    assert header.settings["HARNESS_DEFAULT_MODEL"] == "offline/sonnet"
    assert header.settings["HARNESS_AGENT_MAX_TURNS"] == 3
    assert header.unrecorded == ()
    model = load(recorded).requests[1]  # /model, which lists the models

    same = _start_replay(recorded)  # a clean environment: the recording's settings alone
    changed = _start_replay(
        recorded,
        HARNESS_MODELS='["offline"]',
        HARNESS_OPENAI_BASE_URL="http://127.0.0.1:9/v1",  # not carried: named, not compared
    )
    same_done, changed_done = _finished(same), _finished(changed)

    assert same_done.returncode == 0, same_done.stdout + same_done.stderr
    assert "replay: 3 exchanges, 3 the same, 0 different\n" in same_done.stdout, same_done.stdout
    assert "setting" not in same_done.stdout and "note:" not in same_done.stdout

    out = changed_done.stdout
    assert changed_done.returncode == 1, out + changed_done.stderr
    assert (
        "DIFF  setting HARNESS_MODELS\n"
        '      - ["offline/haiku", "offline/sonnet", "offline/opus"]\n'
        '      + ["offline"]\n'
    ) in out, out
    assert re.search(
        r"^note: HARNESS_OPENAI_BASE_URL is not compared \(.*\): recorded unset, replayed set$",
        out,
        re.M,
    ), out
    assert f"DIFF  exchange {model.id} " in out, out
    assert re.search(r"; 1 setting\(s\) different$", out, re.M), out
