"""The start-up line for a bad environment: the variable named, JSON said, no pydantic dump.

Real settings classes of both processes read from a patched environment; nothing
else is stood in for.
"""

from __future__ import annotations

import pytest

from bot.config import BotSettings
from harness.config import Settings
from harness.hooks import HookConfigError
from harness.startup import QUOTES_STRIPPED, SettingsInvalid, load_settings, one_line, variable


def refusal(cls, monkeypatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SettingsInvalid) as caught:
        load_settings(cls, _env_file=None)
    assert caught.value.retryable is False
    line = str(caught.value)
    assert "\n" not in line and "pydantic" not in line and "errors.pydantic.dev" not in line
    return line


@pytest.mark.parametrize(
    ("name", "value", "example"),
    [
        ("HARNESS_MODELS", "[oops", """HARNESS_MODELS='["offline", "gpt-4o"]'"""),
        ("HARNESS_PLUGINS", "mine:plugin", """HARNESS_PLUGINS='["commands:plugin"]'"""),
        ("HARNESS_AGENTS", "{reviewer}", 'HARNESS_AGENTS=\'{"reviewer": {"instructions"'),
        ("HARNESS_MCP_TOOL_SERVERS", "files=x", 'HARNESS_MCP_TOOL_SERVERS=\'{"files": ['),
    ],
    ids=["models", "plugins", "agents", "mcp-tool-servers"],
)
def test_bad_json_names_the_variable_says_json_and_gives_an_example(
    monkeypatch, name, value, example
):
    line = refusal(Settings, monkeypatch, **{name: value})
    assert line.startswith(f"{name} must be JSON (")
    assert f", e.g. {example}" in line
    assert value not in line  # what was typed may be a secret: it is not repeated


def test_json_of_the_wrong_shape_names_the_variable_and_the_shape(monkeypatch):
    line = refusal(Settings, monkeypatch, HARNESS_MODELS='"gpt-4o"')
    assert line == (
        "HARNESS_MODELS: Input should be a valid list; JSON, e.g. "
        """HARNESS_MODELS='["offline", "gpt-4o"]'"""
    )
    nested = refusal(
        Settings, monkeypatch, HARNESS_MODELS='["offline"]', HARNESS_AGENTS='{"reviewer": 3}'
    )
    assert nested.startswith("HARNESS_AGENTS (at 'reviewer'): Input should be a valid dictionary")


def test_several_wrong_variables_are_each_named_once(monkeypatch):
    line = refusal(
        Settings,
        monkeypatch,
        HARNESS_RETRY_MAX_ATTEMPTS="0",
        HARNESS_MCP_TOOL_SERVERS='{"files": 3}',
    )
    assert line.count("HARNESS_MCP_TOOL_SERVERS") == 2  # once named, once in the example
    assert "HARNESS_RETRY_MAX_ATTEMPTS: Input should be greater than or equal to 1" in line


def test_the_bot_settings_name_their_own_variables_and_aliases(monkeypatch):
    assert refusal(BotSettings, monkeypatch, BOT_PORT="abc") == (
        "BOT_PORT: Input should be a valid integer, unable to parse string as an integer"
    )
    # A field read under another name is named by that name, the one set of several.
    monkeypatch.delenv("BOT_PORT")
    assert refusal(Settings, monkeypatch, BOT_PORT="abc").startswith("BOT_PORT: Input should be")
    assert variable(BotSettings, "data_dir") == "HARNESS_DATA_DIR"  # the first when none is set
    monkeypatch.setenv("BOT_DATA_DIR", "/tmp/x")
    assert variable(BotSettings, "data_dir") == "BOT_DATA_DIR"
    assert variable(BotSettings, "HARNESS_DATA_DIR") == "BOT_DATA_DIR"  # from an alias too


def test_a_check_across_fields_keeps_its_own_words(monkeypatch):
    line = refusal(
        Settings,
        monkeypatch,
        SLACK_BOT_TOKEN="xoxb-1-2-abc",
        HARNESS_SLACK_API_URL="http://example.com/api/",
    )
    assert line.startswith("HARNESS_SLACK_API_URL=http://example.com/api/ would send the Slack bot")
    assert "Value error" not in line and "xoxb-1-2-abc" not in line


def test_one_line_joins_a_list_of_problems_and_prefers_the_users_sentence():
    error = HookConfigError(source="hooks.toml", problems=["first: wrong", "second: also"])
    assert "\n" in str(error)
    assert one_line(error) == "invalid hooks configuration hooks.toml: first: wrong; second: also"

    class Worded(Exception):
        user_message = "say this"

    assert one_line(Worded("not this")) == "say this"
    assert one_line(RuntimeError()) == "RuntimeError"


def test_a_default_cost_limit_with_no_prices_is_refused_at_start(monkeypatch):
    """Issue 26: every task's cost would read $0.00 of the limit for ever."""
    line = refusal(Settings, monkeypatch, HARNESS_BUDGET_COST="5")
    assert line.startswith("HARNESS_BUDGET_COST needs HARNESS_MODEL_PRICES: with no model priced")
    monkeypatch.setenv("HARNESS_MODEL_PRICES", '{"offline": {"input": 1, "output": 2}}')
    assert load_settings(Settings, _env_file=None).budget_cost == 5.0


def test_json_whose_quotes_honcho_stripped_says_to_single_quote_it_in_env(monkeypatch):
    # .env's HARNESS_MODELS=["offline", "gpt-4o"] reaches a `make run` process as this
    line = refusal(Settings, monkeypatch, HARNESS_MODELS="[offline,gpt-4o]")
    assert line.startswith("HARNESS_MODELS must be JSON (")
    assert line.endswith(QUOTES_STRIPPED)
    assert not refusal(Settings, monkeypatch, HARNESS_MODELS='["offline",').endswith(
        QUOTES_STRIPPED
    )
