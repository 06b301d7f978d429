"""Where ``respond`` may post (issue 9: a signed body chose the address)."""

from __future__ import annotations

import pytest

from bot.middleware import GuardResponseUrls

SLACK = GuardResponseUrls()
LOCAL = GuardResponseUrls(local_port=3000)


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.slack.com/commands/T1/2/abc",
        "https://hooks.slack.com:443/actions/T1/2/abc",
        "https://HOOKS.slack.com/commands/T1/2/abc",
    ],
)
def test_slacks_response_urls_pass(url):
    assert SLACK.allowed(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.slack.com/commands/T1/2/abc",  # not https
        "https://hooks.slack.com.evil.example/commands/x",  # a suffix is another host
        "https://hooks.slack.com@evil.example/commands/x",  # userinfo: the host is evil.example
        "https://evil.example/?hooks.slack.com",
        "https://hooks.slack.com:8443/commands/x",
        "https://[::1/commands",  # unparsable
        "http://127.0.0.1:3000/_local/response/k",  # the stand-in exists only locally
        "",
    ],
)
def test_anything_else_is_refused_outside_local_mode(url):
    assert not SLACK.allowed(url)


def test_in_local_mode_only_the_bots_own_stand_in_passes():
    assert LOCAL.allowed("http://127.0.0.1:3000/_local/response/k")
    assert LOCAL.allowed("http://localhost:3000/_local/response/k")
    assert not LOCAL.allowed("http://127.0.0.1:3001/_local/response/k")  # another port
    assert not LOCAL.allowed("http://127.0.0.1:3000/elsewhere")
    assert not LOCAL.allowed("http://10.0.0.5:3000/_local/response/k")
    assert not LOCAL.allowed("https://hooks.slack.com/commands/T1/2/abc")
