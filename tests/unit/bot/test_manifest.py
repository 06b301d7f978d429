"""The Slack manifests: generated from the code, committed as generated, asking for what it uses.

The scopes check does not trust the table it checks: it scans ``bot/`` and ``harness/``
for Web API calls (method-name strings and ``client.chat_postEphemeral``-style calls)
and adds the calls the libraries make for us, each confirmed in the library's source.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml

from bot import manifest as manifest_module
from bot import slash
from bot.events import LISTENS
from bot.manifest import EVENTS, FILES, SLACK_DIR, main, manifest, render
from harness.channels.scopes import APP_METHODS, BOT_METHODS, app_token_scopes

ROOT = Path(__file__).resolve().parents[3]
FAMILIES = (
    "admin|api|apps|assistant|auth|bookmarks|bots|calls|canvases|chat|conversations|dialog|dnd|"
    "emoji|files|functions|pins|reactions|reminders|search|stars|team|usergroups|users|views|"
    "workflows"
)
METHOD = re.compile(rf"(?:{FAMILIES})\.[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)*")
CLIENT_CALL = re.compile(rf"(?:{FAMILIES})_[a-z][A-Za-z]*(?:_[a-z][A-Za-z]*)*")
NOT_CALLERS = {
    "harness/channels/scopes.py",
    "bot/standin/server.py",
    "bot/standin/live.py",
    "bot/recording/recorder.py",
    "bot/replay/view.py",
}
"""The table itself, Slack's stand-in (it answers the methods, it calls none), the recorder
(it wraps the client's calls, whatever they are) and the replay's view (it reads recorded
calls)."""
# Calls a library makes on the code's behalf: (method, library module, name it calls, code uses).
IMPLICIT = [
    ("chat.postMessage", "slack_bolt.context.say.async_say", "chat_postMessage", "AsyncSay"),
    ("auth.test", "slack_bolt.authorization.async_authorize", "auth_test", "AsyncApp("),
    (
        "apps.connections.open",
        "slack_sdk.socket_mode.async_client",
        "apps_connections_open",
        "AsyncSocketModeHandler(",
    ),
]


def sources() -> dict[str, str]:
    found = {}
    for package in ("bot", "harness"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            if rel not in NOT_CALLERS:
                found[rel] = path.read_text()
    return found


def methods_called() -> dict[str, set[str]]:
    """Web API method -> the files that call it."""
    called: dict[str, set[str]] = {}
    for rel, text in sources().items():
        for node in ast.walk(ast.parse(text)):
            name = None
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value if METHOD.fullmatch(node.value) else None
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and CLIENT_CALL.fullmatch(node.func.attr)
            ):
                name = node.func.attr.replace("_", ".")  # client.chat_postEphemeral(...)
            if name:
                called.setdefault(name, set()).add(rel)
    code = "".join(sources().values())
    for method, module, call, used_as in IMPLICIT:
        assert call in inspect.getsource(importlib.import_module(module)), (method, module)
        if used_as in code:
            called.setdefault(method, set()).add(module)
    return called


@pytest.mark.parametrize("variant", list(FILES), ids=list(FILES))
def test_the_committed_manifests_are_what_the_code_generates(variant):
    committed = (SLACK_DIR / FILES[variant]).read_text()
    assert committed == render(socket_mode=variant == "socket"), (
        "run `python -m bot.manifest --write`"
    )
    # The hand-rolled emitter writes YAML a real parser reads back as the same data.
    assert yaml.safe_load(committed) == manifest(socket_mode=variant == "socket")


def test_the_bot_routes_exactly_the_commands_the_manifest_declares():
    declared = [c["command"] for c in manifest(socket_mode=False)["features"]["slash_commands"]]
    assert declared == list(slash.declared())
    assert declared == ["/model", "/effort", "/sub-task", "/task"]
    for name in ("/status", "/invite", "/help"):  # Slack's own: never declared
        assert name not in declared


def test_the_code_calls_only_methods_of_the_table_and_the_table_lists_only_called_ones():
    called = methods_called()
    table = {**BOT_METHODS, **APP_METHODS}
    assert {m: sorted(f) for m, f in called.items() if m not in table} == {}
    assert sorted(set(table) - set(called)) == []
    assert {"chat.postMessage", "chat.postEphemeral", "conversations.replies"} <= set(called)


def test_the_bot_scopes_cover_every_method_and_event_and_nothing_else():
    data = manifest(socket_mode=False)
    scopes = set(data["oauth_config"]["scopes"]["bot"])
    events = data["settings"]["event_subscriptions"]["bot_events"]
    for method, needed in BOT_METHODS.items():
        assert set(needed) <= scopes, method
    for event in events:
        assert EVENTS[event] in scopes, event
    needed = {"commands"} | {EVENTS[e] for e in events}
    needed |= {s for scopes_of in BOT_METHODS.values() for s in scopes_of}
    assert scopes == needed
    assert events == ["app_mention", "message.channels", "message.groups", "message.im"]
    assert {e.split(".")[0] for e in events} == set(LISTENS)


def test_http_variant_has_request_urls_and_interactivity_and_dms():
    data = manifest(socket_mode=False)
    url = "https://YOUR-HOST/slack/events"
    assert all(c["url"] == url for c in data["features"]["slash_commands"])
    settings = data["settings"]
    assert settings["event_subscriptions"]["request_url"] == url
    assert settings["interactivity"] == {"is_enabled": True, "request_url": url}
    assert settings["socket_mode_enabled"] is False
    assert data["features"]["app_home"] == {
        "home_tab_enabled": False,
        "messages_tab_enabled": True,
        "messages_tab_read_only_enabled": False,
    }
    assert "im:history" in data["oauth_config"]["scopes"]["bot"]


def test_socket_variant_has_no_urls_and_names_the_app_token_scope():
    data = manifest(socket_mode=True)
    assert data["settings"]["socket_mode_enabled"] is True
    assert data["settings"]["interactivity"] == {"is_enabled": True}
    assert "url" not in repr(data)  # neither url nor request_url anywhere
    text = render(socket_mode=True)
    assert app_token_scopes() == ("connections:write",)
    assert "# Generate Token with the scope connections:write; set it as SLACK_APP_TOKEN" in text
    assert "then set SLACK_BOT_TOKEN (no signing secret)." in text  # Socket Mode needs none
    # Same commands, scopes and events as over HTTP.
    http = manifest(socket_mode=False)
    assert data["oauth_config"] == http["oauth_config"]
    assert [c["command"] for c in data["features"]["slash_commands"]] == [
        c["command"] for c in http["features"]["slash_commands"]
    ]


def test_check_and_write_from_the_command_line(tmp_path, capsys):
    assert main(["--check", "--dir", str(tmp_path)]) == 1  # missing files are stale
    assert main(["--write", "--dir", str(tmp_path)]) == 0
    assert main(["--check", "--dir", str(tmp_path)]) == 0
    (tmp_path / FILES["socket"]).write_text("socket_mode_enabled: false\n")
    capsys.readouterr()
    assert main(["--check", "--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().out == (
        f"{tmp_path / FILES['socket']} is stale: run `python -m bot.manifest --write`\n"
    )
    assert manifest_module.stale(SLACK_DIR) == []
