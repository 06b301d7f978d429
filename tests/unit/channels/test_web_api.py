"""One Slack configuration for bot and worker (issue 11): where Web API calls go, and when not."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.config import BotSettings, startup_problem
from harness.channels.web_api import SLACK_API_URL, web_api_url
from harness.config import Settings

SLACK_ENV = (
    "SLACK_BOT_TOKEN",
    "HARNESS_SLACK_BOT_TOKEN",
    "HARNESS_SLACK_API_URL",
    "BOT_API_URL",
    "BOT_LOCAL",
    "BOT_HOST",
    "BOT_PORT",
    "SLACK_SIGNING_SECRET",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in SLACK_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def worker() -> Settings:
    return Settings(_env_file=None)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("explicit", "local", "token", "expected"),
    [
        ("", False, "xoxb-1", SLACK_API_URL),
        ("", True, "xoxb-1", "http://127.0.0.1:13000/_local/api/"),
        ("", False, "", "http://127.0.0.1:13000/_local/api/"),
        ("https://slack.example/api/", True, "xoxb-1", "https://slack.example/api/"),
    ],
)
def test_the_rule(explicit: str, local: bool, token: str, expected: str) -> None:
    assert (
        web_api_url(explicit=explicit, local=local, token=token, host="127.0.0.1", port=13000)
        == expected
    )


def test_an_ipv6_host_is_bracketed() -> None:
    url = web_api_url(explicit="", local=True, token="", host="::1", port=3000)
    assert url == "http://[::1]:3000/_local/api/"


def test_the_worker_reads_the_bots_token_and_so_posts_to_slack(clean_env) -> None:
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-real-1")
    settings = worker()
    assert settings.slack_bot_token is not None
    assert settings.slack_bot_token.get_secret_value() == "xoxb-real-1"
    assert settings.slack_web_api_url == SLACK_API_URL
    assert "xoxb-real-1" in settings.secret_values()  # so the redactor masks it everywhere


def test_the_old_name_is_an_alias(clean_env) -> None:
    clean_env.setenv("HARNESS_SLACK_BOT_TOKEN", "xoxb-old-name")
    token = worker().slack_bot_token
    assert token is not None and token.get_secret_value() == "xoxb-old-name"


def test_in_local_mode_the_worker_finds_the_bot_where_it_moved(clean_env) -> None:
    clean_env.setenv("BOT_LOCAL", "1")
    clean_env.setenv("BOT_PORT", "13000")
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-real-1")  # local mode wins: nothing reaches Slack
    assert worker().slack_web_api_url == "http://127.0.0.1:13000/_local/api/"
    bot = BotSettings(_env_file=None)  # type: ignore[call-arg]
    assert bot.web_api_url == worker().slack_web_api_url  # one rule, one place


def test_one_variable_moves_bot_and_worker(clean_env) -> None:
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-real-1")
    clean_env.setenv("HARNESS_SLACK_API_URL", "https://slack.proxy.internal/api/")
    assert worker().slack_web_api_url == "https://slack.proxy.internal/api/"
    assert BotSettings(_env_file=None).web_api_url == "https://slack.proxy.internal/api/"  # type: ignore[call-arg]


def test_a_token_is_never_sent_over_plain_http_to_another_host(clean_env) -> None:
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-real-1")
    clean_env.setenv("HARNESS_SLACK_API_URL", "http://slack.proxy.internal/api/")
    with pytest.raises(ValidationError) as caught:
        worker()
    (error,) = caught.value.errors()
    assert "would send the Slack bot token over plain HTTP to slack.proxy.internal" in error["msg"]
    assert "xoxb-real-1" not in error["msg"]
    clean_env.setenv("SLACK_SIGNING_SECRET", "s")
    problem = startup_problem(BotSettings(_env_file=None))  # type: ignore[call-arg]
    assert problem is not None and "plain HTTP to slack.proxy.internal" in problem


def test_plain_http_to_loopback_and_no_token_at_all_are_fine(clean_env) -> None:
    clean_env.setenv("HARNESS_SLACK_API_URL", "http://slack.proxy.internal/api/")
    assert worker().slack_web_api_url == "http://slack.proxy.internal/api/"  # no token to leak
    clean_env.setenv("SLACK_BOT_TOKEN", "xoxb-real-1")
    clean_env.setenv("HARNESS_SLACK_API_URL", "http://127.0.0.1:9/api/")
    assert worker().slack_web_api_url == "http://127.0.0.1:9/api/"


def test_a_url_that_is_not_http_is_refused(clean_env) -> None:
    clean_env.setenv("HARNESS_SLACK_API_URL", "slack.com/api")
    with pytest.raises(ValidationError, match="is not an http"):
        worker()
