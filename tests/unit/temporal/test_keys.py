"""Payload keys: parsing, where they are read from, the keys CLI, and refusing to run without one.

The CLI and the worker run as a user runs them (subprocesses, an empty data directory,
no key in the environment).
"""

from __future__ import annotations

import base64
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from harness.config import Settings
from harness.programs import program
from harness.temporal.client import HarnessClient
from harness.temporal.errors import PayloadKeyError
from harness.temporal.keys import (
    ENV_VAR,
    FILE_ENV_VAR,
    ensure_key_file,
    load_keys,
    new_key,
    parse_keys,
)


def settings(tmp_path: Path, **values) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, **values)  # type: ignore[call-arg]


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    clean.update(HARNESS_DATA_DIR=str(cwd), **env)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=clean, capture_output=True, text=True, timeout=60
    )


def test_a_key_list_parses_in_order_and_a_repeated_key_counts_once():
    a, b = new_key(), new_key()
    keys = parse_keys(f"{a}, {b},{a}\n")
    assert [k.secret for k in keys] == [base64.b64decode(a), base64.b64decode(b)]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "holds no key"),
        (" , ", "holds no key"),
        ("not*base64!", "key 1 of 1 is not base64"),
        (f"{new_key()},{base64.b64encode(b'short').decode()}", "key 2 of 2 decodes to 5 bytes"),
    ],
    ids=["empty", "only-commas", "not-base64", "wrong-length"],
)
def test_a_bad_key_names_the_variable_and_the_problem_but_not_the_value(text, problem):
    with pytest.raises(PayloadKeyError) as caught:
        parse_keys(text, source=ENV_VAR)
    message = str(caught.value)
    assert message.startswith(f"{ENV_VAR}: ") and problem in message
    for item in text.split(","):
        assert not item.strip() or item.strip() not in message
    assert not caught.value.retryable


def test_the_variable_wins_over_the_file(tmp_path):
    ensure_key_file(tmp_path / "payload.key")
    key = new_key()
    assert load_keys(settings(tmp_path, payload_key=key)) == parse_keys(key)


def test_without_the_variable_the_data_dirs_key_file_is_read(tmp_path):
    assert ensure_key_file(tmp_path / "payload.key")
    keys = load_keys(settings(tmp_path))
    assert keys == parse_keys((tmp_path / "payload.key").read_text())


def test_a_named_key_file_replaces_the_default_one(tmp_path):
    elsewhere = tmp_path / "secrets" / "harness.key"
    ensure_key_file(elsewhere)
    assert load_keys(settings(tmp_path, payload_key_file=elsewhere)) == parse_keys(
        elsewhere.read_text()
    )


def test_no_key_at_all_names_the_variable_the_file_and_the_command(tmp_path):
    with pytest.raises(PayloadKeyError) as caught:
        load_keys(settings(tmp_path))
    path = tmp_path / "payload.key"
    hint = f"{program('harness.temporal.keys')} ensure {path}"
    assert str(caught.value) == (
        f"{ENV_VAR}: not set, and there is no key file {path} ({FILE_ENV_VAR}); "
        f"create one with: {hint}"
    )
    # typed as printed, in a shell with no virtual environment active (issue 26)
    bare = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run(shlex.split(hint), env=bare, check=True, capture_output=True, timeout=60)
    assert load_keys(settings(tmp_path))


def test_a_malformed_key_file_is_named(tmp_path):
    (tmp_path / "payload.key").write_text("oops!\n")
    with pytest.raises(PayloadKeyError, match=f"^{FILE_ENV_VAR} .*payload.key: key 1 of 1 is not"):
        load_keys(settings(tmp_path))


def test_the_payload_keys_are_secrets_the_redactor_is_given(tmp_path):
    a, b = new_key(), new_key()
    assert settings(tmp_path, payload_key=f"{a},{b}").secret_values() == (a, b)
    ensure_key_file(tmp_path / "payload.key")
    from_file = (tmp_path / "payload.key").read_text().strip()
    assert settings(tmp_path, slack_bot_token="xoxb-1").secret_values() == ("xoxb-1", from_file)


async def test_the_harness_client_will_not_connect_without_a_key(tmp_path):
    # Nothing listens on the address: the key is checked before any connection is tried.
    with pytest.raises(PayloadKeyError, match=ENV_VAR):
        await HarnessClient.connect(settings(tmp_path, temporal_address="127.0.0.1:1"))


def test_new_prints_a_fresh_valid_key(tmp_path):
    first, second = (run("-m", "harness.temporal.keys", "new", cwd=tmp_path) for _ in range(2))
    assert first.returncode == 0 and first.stderr == ""
    assert len(parse_keys(first.stdout)) == 1 and first.stdout != second.stdout


def test_ensure_creates_a_private_key_file_once(tmp_path):
    path = tmp_path / "deeper" / "still" / "payload.key"
    created = run("-m", "harness.temporal.keys", "ensure", str(path), cwd=tmp_path)
    [key] = parse_keys(path.read_text())
    assert created.returncode == 0 and created.stdout == f"created {path} (key id {key.id})\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    again = run("-m", "harness.temporal.keys", "ensure", str(path), cwd=tmp_path)
    assert again.returncode == 0 and "exists" in again.stdout and key.id in again.stdout
    assert parse_keys(path.read_text()) == (key,)  # left as it was


def test_ids_lists_the_configured_keys_encrypting_first(tmp_path):
    a, b = parse_keys(new_key())[0], parse_keys(new_key())[0]
    text = ",".join(base64.b64encode(k.secret).decode() for k in (a, b))
    listed = run("-m", "harness.temporal.keys", "ids", cwd=tmp_path, HARNESS_PAYLOAD_KEY=text)
    assert listed.stdout == f"{a.id} encrypts and decrypts\n{b.id} decrypts\n"


def test_the_worker_without_a_key_exits_2_with_one_line(tmp_path):
    worker = run("-m", "harness.worker", cwd=tmp_path)
    assert worker.returncode == 2
    assert worker.stderr.count("\n") == 1 and "Traceback" not in worker.stderr
    assert worker.stderr.startswith(f"worker not starting: {ENV_VAR}: not set")
    assert str(tmp_path / "payload.key") in worker.stderr


def test_the_worker_with_a_bad_key_names_the_variable_not_the_value(tmp_path):
    worker = run("-m", "harness.worker", cwd=tmp_path, HARNESS_PAYLOAD_KEY="c2hvcnQ=")
    assert worker.returncode == 2 and "c2hvcnQ" not in worker.stderr
    assert worker.stderr == (
        f"worker not starting: {ENV_VAR}: key 1 of 1 decodes to 5 bytes, not 32; "
        f"make one with: {sys.executable} -m harness.temporal.keys new\n"  # runs from anywhere
    )
