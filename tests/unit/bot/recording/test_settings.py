"""The settings a recording carries (issue 28): every setting classified, none secret, and
each carried value read back from the environment exactly as the recording bot had it."""

from __future__ import annotations

import json

from pydantic import SecretStr

from bot.recording.settings import (
    CARRIED,
    DEPLOYMENT,
    NOT_CARRIED,
    as_environment,
    carried,
    not_carried,
    variable,
)
from harness.config import Settings
from harness.redaction import Redactor

KEY = "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789"
SECRETS = {
    "openai_api_key": KEY,
    "anthropic_api_key": "sk-ant-api03-Zyxwvutsrqponmlkjihgfedcba9876543210",
    "slack_bot_token": "xoxb-1111-2222-abcdefghijklmnop",
    "payload_key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    "database_url": "postgresql://harness:hunter2-but-longer@db.internal:5432/harness",
}
EVERY_CARRIED = {
    "models": ["offline/haiku", "offline/sonnet", "offline/opus"],
    "default_model": "offline/sonnet",
    "system_one_model": "offline/haiku",
    "agents": {"reviewer": {"instructions": "Review.", "tools": ["echo"], "max_turns": 2}},
    "plugins": ["commands:plugin", "ourteam.policy:plugin"],
    "agent_token_budget": 1234,
    "agent_max_turns": 3,
    "budget_tokens": 5000,
    "budget_tool_calls": 7,
    "budget_cost": 1.5,
    "model_prices": {"offline/opus": {"input": 15.0, "output": 75.0}},
    "compaction_keep_last": 9,
    "history_event_limit": 500,
    "history_bytes_limit": 200_000,
    "history_update_limit": 50,
    "subtask_wait_seconds": 30.0,
    "watchers_may_talk": True,
    "progress": "stream",
    "progress_interval_seconds": 2.5,
    "hook_max_depth": 4,
    "openai_reasoning_effort": False,
    "model_timeout_seconds": 33.0,
    "update_timeout_seconds": 12.5,
    "temporal_rpc_seconds": 2.0,
    "activity_start_to_close_seconds": 60.0,
    "activity_heartbeat_seconds": 4.0,
    "retry_max_attempts": 2,
    "retry_initial_backoff_seconds": 0.5,
    "retry_backoff_multiplier": 3.0,
    "retry_max_backoff_seconds": 9.0,
    "retry_max_worker_losses": 1,
}
"""A value other than the default for every carried setting."""


def test_every_setting_is_carried_not_carried_or_deployment_and_only_one():
    groups = [set(CARRIED), set(NOT_CARRIED), set(DEPLOYMENT)]
    assert set().union(*groups) == set(Settings.model_fields)
    assert sum(len(g) for g in groups) == len(Settings.model_fields)


def test_no_carried_setting_is_a_secret_or_read_under_another_name():
    for name in CARRIED:
        field = Settings.model_fields[name]
        assert SecretStr not in (field.annotation, *getattr(field.annotation, "__args__", ()))
        assert field.validation_alias is None, name  # HARNESS_<NAME> is its variable


def test_the_recorded_settings_hold_no_secret_and_mask_one_quoted_in_a_value():
    agents = {"leaky": {"instructions": f"call with {KEY}"}}
    settings = Settings(_env_file=None, **SECRETS, agents=agents, hooks_config="hooks.toml")
    recorded = json.dumps(carried(settings, Redactor(secrets=settings.secret_values())))
    for secret in SECRETS.values():
        assert secret not in recorded
    assert "hunter2" not in recorded
    assert '"instructions": "call with [REDACTED]"' in recorded
    assert not_carried(settings) == (
        "HARNESS_ANTHROPIC_API_KEY",
        "HARNESS_HOOKS_CONFIG",
        "HARNESS_OPENAI_API_KEY",
    )


def test_every_carried_value_reads_back_from_the_environment_as_recorded(monkeypatch):
    assert set(EVERY_CARRIED) == CARRIED
    recording_bot = Settings(_env_file=None, **EVERY_CARRIED)
    recorded = carried(recording_bot, Redactor())
    assert recorded == {
        variable(k): v
        for k, v in sorted(recording_bot.model_dump(mode="json").items())
        if k in CARRIED
    }
    for name, value in as_environment(recorded).items():
        monkeypatch.setenv(name, value)
    replaying = Settings(_env_file=None)
    assert replaying.model_dump(include=set(CARRIED)) == recording_bot.model_dump(
        include=set(CARRIED)
    )
    for name in CARRIED:  # and each differs from the default, so the round trip is no accident
        assert getattr(replaying, name) != Settings.model_fields[name].get_default(
            call_default_factory=True
        ), name


def test_an_unset_optional_is_left_to_its_default():
    recorded = carried(Settings(_env_file=None), Redactor())
    assert recorded["HARNESS_UPDATE_TIMEOUT_SECONDS"] is None
    assert "HARNESS_UPDATE_TIMEOUT_SECONDS" not in as_environment(recorded)
    assert as_environment(recorded)["HARNESS_MODELS"] == '["offline"]'
    assert as_environment(recorded)["HARNESS_PROGRESS"] == "on"
