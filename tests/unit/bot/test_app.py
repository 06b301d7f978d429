"""The running bot and its developer tooling (issue 25, point 4): the stand-in only in local mode.

Import-linter holds the static wall (``pyproject.toml``: the running bot imports none of
``bot.say``, ``bot.replay``, ``bot.testing``, and ``bot.standin`` only where local mode starts
it); these tests hold what that exception means when a bot actually starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bot.app import build_app, build_web_app
from bot.config import BotSettings
from bot.standin import POSTS_PATH, SlackStandIn

TOOLING = ("bot.say", "bot.replay", "bot.testing", "bot.standin")


def settings(tmp_path: Path, **values: object) -> BotSettings:
    return BotSettings(_env_file=None, data_dir=tmp_path, **values)  # type: ignore[arg-type]


def test_starting_the_running_bot_loads_none_of_its_tooling():
    loaded = (
        "import json, sys, bot.__main__, bot.app; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({TOOLING!r}))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", loaded], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout) == []


def test_a_bot_talking_to_slack_has_no_stand_in(tmp_path):
    given = settings(tmp_path, signing_secret="s", bot_token="xoxb-1-2-abc")
    bot = build_app(given, client=None)
    routes = {r.resource.canonical for r in build_web_app(given, bot).router.routes()}
    assert bot.standin is None
    assert not any(route.startswith("/_local/") for route in routes)


def test_local_mode_serves_the_stand_in_on_the_bot_s_own_port(tmp_path):
    given = settings(tmp_path, local=True)
    bot = build_app(given, client=None)
    routes = {r.resource.canonical for r in build_web_app(given, bot).router.routes()}
    assert isinstance(bot.standin, SlackStandIn)
    assert POSTS_PATH in routes
