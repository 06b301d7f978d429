"""Issue 16's acceptance: record a session through ``bot.say``, replay it against a fresh stack.

One real stack records (``BOT_RECORD``) a mention, ``/model``, ``/effort``, a thread reply that
makes a tool call, one that asks a question with buttons, and a click on one;
``python -m bot.replay`` then starts a fresh stack of its own for each run: the same code
passes; a hooks file that vetoes the tool call fails with a diff naming that thread reply's
exchange; the same file with ``--audit`` passes and lists the veto it would have made.

The session is recorded with three models (``HARNESS_MODELS``) and a default one, so the
recording carries the settings that shape answers and its replay runs with them (issue 28):
with a clean environment every exchange and every setting is the same; with
``HARNESS_MODELS`` changed in the replay's environment, the setting is a DIFF showing both
values (exit 1) and so is the exchange that lists the models; a model URL the recording does
not carry is named as not compared. One recording and one clean replay serve both issues
(each stack is a dev server, a worker and a bot started afresh).
Everything is a subprocess, as a user runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.recording import load
from bot.testing.stack import running_stack
from tests.support.thread_scan import answer_texts, recorded_leaks

OWNER, CHANNEL = "U0OWNER1", "C0REPLAY1"
MODELS = ["offline/haiku", "offline/sonnet", "offline/opus"]
RECORDED_ENV = {
    "HARNESS_MODELS": json.dumps(MODELS),
    "HARNESS_DEFAULT_MODEL": "offline/sonnet",
    "HARNESS_AGENT_MAX_TURNS": "3",
}
ECHO = 'call echo {"text": "hello from the thread"}'
ASK = 'call ask_human {"question": "which environment?", "options": ["staging", "prod"]}'
VETO = """
[[policy.rules]]
name = "no-echo"
action = "deny"
tool = "echo"
reason = "no echoes in replays"
"""


def _clean_env(**more: str) -> dict[str, str]:
    """The environment a user's shell has: none of our variables but those given."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARNESS_", "SLACK_", "BOT_", "TEMPORAL_"))
    }
    return env | more


def _say(stack, *args: str) -> str:
    env = _clean_env(SLACK_SIGNING_SECRET=stack.signing_secret)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot.say",
            "--url",
            stack.bot_url,
            "--user",
            OWNER,
            "--channel",
            CHANNEL,
            *args,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _start_replay(path: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bot.replay", str(path), "--patience", "6", "--quiet", "0.7", *args],
        env=_clean_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finished(started: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    stdout, stderr = started.communicate(timeout=300)
    return subprocess.CompletedProcess(started.args, started.returncode, stdout, stderr)


def _replay(path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return _finished(_start_replay(path, *args, **env))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session, recorded by a real stack with three models."""
    path = tmp_path_factory.mktemp("recorded") / "session.jsonl"
    with running_stack(record=path, env=RECORDED_ENV) as stack:
        said = _say(stack, "hello there")
        thread = re.search(r"in thread (\d+\.\d+)", said)
        assert thread, said
        listed = _say(stack, "/model")
        assert "`offline/haiku`, `offline/sonnet`, `offline/opus`" in listed, listed
        _say(stack, "/effort high")
        echoed = _say(stack, "--thread", thread.group(1), ECHO)
        assert "hello from the thread" in echoed, echoed
        asked = _say(stack, "--thread", thread.group(1), ASK)
        assert "which environment?" in asked, asked
        clicked = _say(stack, "--click", "1", "--thread", thread.group(1))
        assert "answered: staging" in clicked, clicked
        status = _say(stack, "/task status")  # the state the replay must reach too
        assert "effort: `high`" in status and "offline/sonnet" in status, status
        payload_key = stack.payload_key
    text = path.read_text()
    assert payload_key not in text and stack.signing_secret not in text
    return path


@pytest.fixture(scope="module")
def replays(recorded: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """Two replays of the session, run at once: ``same`` in a clean environment (the
    recording's settings alone), ``changed`` with ``HARNESS_MODELS`` changed and a model URL
    the recording does not carry."""
    same = _start_replay(recorded)
    changed = _start_replay(
        recorded,
        HARNESS_MODELS='["offline"]',
        HARNESS_OPENAI_BASE_URL="http://127.0.0.1:9/v1",  # not carried: named, not compared
    )
    return {"same": _finished(same), "changed": _finished(changed)}


def test_the_session_replays_against_a_fresh_stack_exchange_by_exchange(
    recorded: Path, replays: dict[str, subprocess.CompletedProcess[str]]
):
    requests = load(recorded).requests
    assert len(requests) == 7
    done = replays["same"]
    assert done.returncode == 0, done.stdout + done.stderr
    assert "replay: 7 exchanges, 7 the same, 0 different" in done.stdout, done.stdout
    for request in requests:
        assert f"same  exchange {request.id} " in done.stdout


def test_the_recording_carries_its_settings_and_replays_the_same_and_a_change_is_a_diff(
    recorded: Path, replays: dict[str, subprocess.CompletedProcess[str]]
):
    header = load(recorded).header
    assert header.settings is not None
    assert header.settings["HARNESS_MODELS"] == MODELS
    assert header.settings["HARNESS_DEFAULT_MODEL"] == "offline/sonnet"
    assert header.settings["HARNESS_AGENT_MAX_TURNS"] == 3
    assert header.unrecorded == ()
    model = load(recorded).requests[1]  # /model, which lists the models

    same_done, changed_done = replays["same"], replays["changed"]
    assert same_done.returncode == 0, same_done.stdout + same_done.stderr
    assert "replay: 7 exchanges, 7 the same, 0 different\n" in same_done.stdout, same_done.stdout
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


def test_what_the_recorded_session_showed_holds_no_internals(recorded: Path):
    """Its slash replies, posts and click answers, as the recording holds them (issue 26)."""
    recording = load(recorded)
    status = recording.requests[6]
    texts = answer_texts(status.response.body) + [
        str(e.payload.get("text")) for e in recording.effects[status.id] if hasattr(e, "payload")
    ]
    assert any("effort: `high`" in t for t in texts), texts  # the status reply is read
    assert recorded_leaks(recording) == []


def test_a_hooks_file_that_vetoes_the_tool_call_fails_naming_the_exchange(
    recorded: Path, tmp_path: Path
):
    hooks = tmp_path / "veto.toml"
    hooks.write_text(VETO)
    requests = load(recorded).requests
    reply = requests[3]  # the thread reply that calls the tool
    vetoing = _start_replay(recorded, HARNESS_HOOKS_CONFIG=str(hooks))
    auditing = _start_replay(recorded, "--audit", HARNESS_HOOKS_CONFIG=str(hooks))  # at once
    done, audited = _finished(vetoing), _finished(auditing)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"DIFF  exchange {reply.id} " in done.stdout, done.stdout
    assert re.search(r"^      -.*echo: hello from the thread", done.stdout, re.M), done.stdout
    assert re.search(r"^      \+.*echo: refused: no echoes in replays", done.stdout, re.M)
    # The state the status view shows differs too (no tool call ran); nothing else does.
    assert f"DIFF  exchange {requests[6].id} " in done.stdout and "tool calls 0" in done.stdout
    assert "replay: 7 exchanges, 5 the same, 2 different" in done.stdout, done.stdout

    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert "replay: 7 exchanges, 7 the same, 0 different" in audited.stdout, audited.stdout
    assert re.search(
        rf"^  exchange {reply.id}: policy at tool\.invoked\.pre: would refuse: "
        r"no echoes in replays",
        audited.stdout,
        re.M,
    ), audited.stdout


TRIAL = """
[[policy.rules]]
name = "shout"
action = "rewrite"
tool = "echo"
set = { text = "SHOUTED" }

[approvals]
[[approvals.rules]]
name = "shouting"
tool = "echo"
verdict = "deny"
arguments = { text = "SHOUT" }
reason = "no shouting"

[[approvals.rules]]
name = "greetings"
tool = "echo"
verdict = "deny"
arguments = { text = "hello" }
reason = "no greetings"
"""


def test_audit_mode_applies_no_approvals_and_lists_what_follows_a_rewrite(
    recorded: Path, tmp_path: Path
):
    """A dry run (issue 26): the file's [approvals] would refuse the recorded echo, and its
    policy would rewrite it first; nothing applies, and the audit lists the rewrite and the
    refusal the rewritten call would then meet (not the one the original would)."""
    hooks = tmp_path / "trial.toml"
    hooks.write_text(TRIAL)
    reply = load(recorded).requests[3]  # the thread reply that calls the tool
    audited = _replay(recorded, "--audit", HARNESS_HOOKS_CONFIG=str(hooks))
    assert audited.returncode == 0, audited.stdout + audited.stderr
    assert "replay: 7 exchanges, 7 the same, 0 different" in audited.stdout, audited.stdout
    lines = [line.strip() for line in audited.stdout.splitlines() if line.startswith("  exchange")]
    assert lines == [
        f"exchange {reply.id}: policy at tool.invoked.pre: would rewrite call",
        f"exchange {reply.id}: approvals at tool.invoked.pre: would refuse: no shouting (shouting)",
    ], audited.stdout
