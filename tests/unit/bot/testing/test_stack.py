"""What a stack's processes are started with: its own settings, never the caller's."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bot.testing.stack import NOT_INHERITED, Stack, _with_env, temporal_binary


def blank(tmp_path: Path) -> Stack:
    return Stack(
        temporal_address="127.0.0.1:1",
        task_queue="q",
        bot_url="http://127.0.0.1:2/slack/events",
        signing_secret="s3cret",
        bot_user="UBOTLOCAL",
        payload_key="k",
        worker_health_url="http://127.0.0.1:3/readyz",
        data_dir=tmp_path,
        env={},
    )


def test_the_callers_slack_bot_harness_and_temporal_settings_never_reach_the_stack(
    tmp_path, monkeypatch
):
    for name in (
        "SLACK_BOT_TOKEN",
        "SLACK_SIGNING_SECRET",
        "BOT_APP_TOKEN",
        "HARNESS_DATABASE_URL",
        "TEMPORAL_API_KEY",
    ):
        monkeypatch.setenv(name, "xoxb-from-the-developers-shell")
    monkeypatch.setenv("KIT_KEPT", "yes")
    stack = _with_env(blank(tmp_path), {}, None, ("commands:plugin",), None, 2, 3)
    assert "xoxb-from-the-developers-shell" not in stack.env.values()
    assert stack.env["KIT_KEPT"] == "yes"
    assert stack.signing_secret == stack.env["BOT_SIGNING_SECRET"] == "s3cret"
    ours = {k: v for k, v in stack.env.items() if k.startswith(NOT_INHERITED)}
    assert ours == {
        "HARNESS_TEMPORAL_ADDRESS": "127.0.0.1:1",
        "HARNESS_TASK_QUEUE": "q",
        "HARNESS_DATA_DIR": str(tmp_path),
        "HARNESS_PAYLOAD_KEY": "k",
        "HARNESS_PLUGINS": '["commands:plugin"]',
        "HARNESS_HEALTH_HOST": "127.0.0.1",
        "HARNESS_HEALTH_PORT": "3",
        "HARNESS_SHUTDOWN_GRACE_SECONDS": "2",
        "HARNESS_TEMPORAL_UI_URL": "",
        "BOT_LOCAL": "1",
        "BOT_HOST": "127.0.0.1",
        "BOT_PORT": "2",
        "BOT_SIGNING_SECRET": "s3cret",
        "BOT_BOT_USER_ID": "UBOTLOCAL",
        "BOT_SHUTDOWN_GRACE_SECONDS": "2",
    }


def test_hooks_file_plugins_recording_and_extra_env_are_passed_on(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    stack = _with_env(
        blank(tmp_path),
        {"HARNESS_MODELS": '["offline"]', "SLACK_SIGNING_SECRET": "mine"},
        Path("hooks.toml"),
        ["commands:plugin", "mine:plugin"],
        Path("traffic.jsonl"),
        2,
        3,
    )
    assert stack.env["HARNESS_HOOKS_CONFIG"] == str(tmp_path / "hooks.toml")
    assert stack.env["BOT_RECORD"] == str(tmp_path / "traffic.jsonl")
    assert json.loads(stack.env["HARNESS_PLUGINS"]) == ["commands:plugin", "mine:plugin"]
    assert stack.env["HARNESS_MODELS"] == '["offline"]'
    assert stack.signing_secret == "mine"  # what the bot will check, so what the client signs with
    assert stack.env["PYTHONPATH"].split(os.pathsep)[0] == str(tmp_path)


def test_the_temporal_binary_is_the_one_installed_beside_python():
    assert Path(temporal_binary()).name == "temporal"
    assert os.access(temporal_binary(), os.X_OK)
