"""Which settings may start the bot (issue 9: local mode is explicit and loopback-only)."""

from __future__ import annotations

import pytest

from bot.app import build_app, build_web_app
from bot.config import LOCAL_SIGNING_SECRET, BotSettings, startup_problem
from harness.http import is_loopback


def settings(**values) -> BotSettings:
    return BotSettings(_env_file=None, **values)


def test_a_bot_token_alone_no_longer_means_the_development_secret():
    given = settings(bot_token="xoxb-1-2-abc")
    assert given.secret == ""
    assert startup_problem(given).startswith("SLACK_SIGNING_SECRET is not set: ")
    with pytest.raises(ValueError, match="SLACK_SIGNING_SECRET is not set"):
        build_app(given, client=None)


def test_local_mode_uses_the_development_secret_unless_one_is_given():
    assert settings(local=True).secret == LOCAL_SIGNING_SECRET
    assert settings(local=True, signing_secret="own").secret == "own"
    assert startup_problem(settings(local=True)) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.5", "bot.example.com", ""])
def test_local_mode_refuses_a_host_others_can_reach(host):
    problem = startup_problem(settings(local=True, host=host))
    assert problem is not None and f"BOT_HOST={host} is not one" in problem


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_hosts(host):
    assert is_loopback(host)


def test_the_mode_names():
    assert settings(local=True, app_token="xapp-1").mode == "local mode"
    assert settings(signing_secret="s", bot_token="t").mode == "HTTP mode"
    assert settings(signing_secret="s", bot_token="t", app_token="xapp-1").mode == "Socket Mode"


def test_the_web_api_is_slacks_outside_local_mode_and_the_stand_in_inside_it():
    assert settings(signing_secret="s", bot_token="t").web_api_url == "https://slack.com/api/"
    assert settings(local=True, port=4000).web_api_url == "http://127.0.0.1:4000/_local/api/"


def test_only_a_local_bot_whose_web_api_is_its_own_stand_in_sees_the_workers_calls():
    assert settings(local=True, port=4000).web_api_is_standin
    own = "http://localhost:4000/_local/api/"  # the same stand-in, named otherwise
    assert settings(local=True, port=4000, api_url=own).web_api_is_standin
    for moved in ("http://127.0.0.1:4001/_local/api/", "https://slack.com/api/"):
        assert not settings(local=True, port=4000, api_url=moved).web_api_is_standin
    assert not settings(signing_secret="s", bot_token="t").web_api_is_standin


def test_the_secrets_the_redactor_is_given_are_the_configured_ones():
    given = settings(signing_secret="sig", bot_token="xoxb-t", app_token="")
    assert given.secrets() == ("sig", "xoxb-t")


def posted(web_app) -> list[str]:
    return [r.resource.canonical for r in web_app.router.routes() if r.method == "POST"]


def test_socket_mode_starts_without_a_signing_secret_and_serves_no_http_endpoint_for_slack():
    given = settings(bot_token="xoxb-1-2-abc", app_token="xapp-1-A0APP1-1-abc")
    assert given.socket_mode and given.secret == ""
    assert startup_problem(given) is None
    web_app = build_web_app(given, build_app(given, client=None))
    assert posted(web_app) == []  # nothing could verify an HTTP request from Slack


def test_socket_mode_with_a_signing_secret_keeps_the_verified_http_endpoint():
    given = settings(bot_token="xoxb-1-2-abc", app_token="xapp-1-A0APP1-1-abc", signing_secret="s")
    web_app = build_web_app(given, build_app(given, client=None))
    assert posted(web_app) == ["/slack/events"]


def test_socket_mode_needs_the_bot_token_too():
    problem = startup_problem(settings(app_token="xapp-1-A0APP1-1-abc"))
    assert problem is not None and problem.startswith(
        "SLACK_BOT_TOKEN is not set: Socket Mode needs it besides SLACK_APP_TOKEN"
    )
    assert "SLACK_SIGNING_SECRET" not in problem


def test_a_bot_token_given_as_the_app_token_is_named_and_never_shown():
    problem = startup_problem(settings(bot_token="xoxb-1-2-abc", app_token="xoxb-9-8-zyx"))
    assert problem is not None and problem.startswith(
        "SLACK_APP_TOKEN is not an app-level token (those start with xapp-): "
    )
    assert "connections:write" in problem and "xoxb-9-8-zyx" not in problem
