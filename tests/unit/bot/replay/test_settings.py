"""The recording's settings on replay (issue 28): the stack runs with them (yours where you set
one), any carried setting that differs is a DIFF, and what is not carried is named."""

from __future__ import annotations

import io

import pytest

from bot.recording.format import Header
from bot.recording.settings import CARRIED, as_environment, carried, not_carried, variable
from bot.replay.compare import report
from bot.replay.settings import compare_settings, report_settings, stack_environment
from harness.config import Settings
from harness.redaction import Redactor

from ..recording.test_settings import EVERY_CARRIED

RECORDED = {"models": ["offline/haiku", "offline/sonnet", "offline/opus"], "agent_max_turns": 3}


def header(settings: Settings | None) -> Header:
    return Header(
        started_at="x",
        bot_user_id="UBOT",
        local=True,
        captures=("requests",),
        settings=carried(settings, Redactor()) if settings else None,
        unrecorded=not_carried(settings) if settings else (),
    )


def test_the_stack_runs_with_the_recordings_settings_where_yours_sets_none():
    env = stack_environment(header(Settings(_env_file=None, **RECORDED)), Settings(_env_file=None))
    assert env == as_environment(carried(Settings(_env_file=None, **RECORDED), Redactor()))
    assert env["HARNESS_MODELS"] == '["offline/haiku", "offline/sonnet", "offline/opus"]'
    assert env["HARNESS_AGENT_MAX_TURNS"] == "3"


def test_yours_wins_and_what_a_recording_does_not_carry_is_yours(tmp_path, monkeypatch):
    hooks = tmp_path / "hooks.toml"
    monkeypatch.chdir(tmp_path)
    yours = Settings(
        _env_file=None,
        models=["offline"],
        hooks_config="hooks.toml",
        openai_base_url="http://127.0.0.1:9/v1",
        openai_api_key="sk-mine",
    )
    recorded = header(Settings(_env_file=None, **RECORDED, budget_tokens=10))
    env = stack_environment(recorded, yours)
    assert env["HARNESS_MODELS"] == '["offline"]'  # yours
    assert env["HARNESS_AGENT_MAX_TURNS"] == "3"  # the recording's
    assert env["HARNESS_BUDGET_TOKENS"] == "10"
    assert env["HARNESS_HOOKS_CONFIG"] == str(hooks)  # absolute: the stack runs elsewhere
    assert env["HARNESS_OPENAI_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert env["HARNESS_OPENAI_API_KEY"] == "sk-mine"
    assert "HARNESS_SKILLS_DIR" not in env and "HARNESS_TASK_QUEUE" not in env


def test_a_setting_this_release_lacks_is_not_sent_but_named():
    recorded = header(Settings(_env_file=None))
    recorded = recorded.model_copy(
        update={"settings": {**(recorded.settings or {}), "HARNESS_GONE": 1}}
    )
    assert "HARNESS_GONE" not in stack_environment(recorded, Settings(_env_file=None))
    diffs, notes = compare_settings(recorded, header(Settings(_env_file=None)))
    assert diffs == []
    assert notes == ["HARNESS_GONE is in the recording, but this release has no such setting"]


def test_the_same_settings_are_no_diff_and_no_note():
    same = Settings(_env_file=None, **RECORDED)
    assert compare_settings(header(same), header(same)) == ([], [])


@pytest.mark.parametrize("name", sorted(CARRIED))
def test_a_change_of_any_carried_setting_is_a_diff(name):
    # A cost limit needs prices (the settings refuse it otherwise): both sides have them.
    base = {"model_prices": EVERY_CARRIED["model_prices"]} if name == "budget_cost" else {}
    recorded = header(Settings(_env_file=None, **base))
    replayed = header(Settings(_env_file=None, **base, **{name: EVERY_CARRIED[name]}))
    diffs, notes = compare_settings(recorded, replayed)
    assert [d.name for d in diffs] == [variable(name)] and notes == []
    out = io.StringIO()
    report_settings(diffs, notes, out)
    assert report([], out, settings_different=len(diffs)) is False
    assert out.getvalue().startswith(f"DIFF  setting {variable(name)}\n      - ")
    assert out.getvalue().endswith(
        "replay: 0 exchanges, 0 the same, 0 different; 1 setting(s) different\n"
    )


def test_a_setting_not_carried_is_named_when_either_side_has_it():
    recorded = header(Settings(_env_file=None, hooks_config="recorded.toml"))
    replayed = header(Settings(_env_file=None, openai_base_url="http://127.0.0.1:9/v1"))
    diffs, notes = compare_settings(recorded, replayed)
    assert diffs == []
    assert notes == [
        "HARNESS_HOOKS_CONFIG is not compared (the hooks file is what a replay tests: yours "
        "runs): recorded set, replayed unset",
        "HARNESS_OPENAI_BASE_URL is not compared (where models are served (a URL may hold a "
        "credential)): recorded unset, replayed set",
    ]


def test_an_older_recording_is_said_to_carry_no_settings():
    diffs, notes = compare_settings(header(None), header(Settings(_env_file=None)))
    assert diffs == [] and notes[0].startswith("the recording carries no settings")
    assert stack_environment(header(None), Settings(_env_file=None)) == {}
