"""``python -m bot`` checks its settings at start: the hooks configuration, as the worker
does (issue 6), its mode (issue 9: local mode is explicit and loopback-only, any
other mode needs Slack's credentials) and its payload key (issue 9: no key, no bot).

Run as a user runs it, a subprocess with the settings in its environment; Temporal
is not needed to start the bot, so none is given.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
from pathlib import Path

from bot.config import BotSettings
from bot.serving import serve
from harness.config import Settings
from harness.startup import QUOTES_STRIPPED
from tests.integration.temporal.conftest import PAYLOAD_KEY

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[3]
TAGGER = "tests.unit.test_plugins:passthrough"


def bot_env(tmp_path: Path, config: Path | None = None, **extra: str) -> dict[str, str]:
    """The environment of a bot in local mode unless ``extra`` says otherwise."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "BOT_", "SLACK_"))}
    env.update(
        HARNESS_PLUGINS='["commands:plugin"]',
        HARNESS_DATA_DIR=str(tmp_path),
        BOT_PORT=str(free_port()),
        BOT_LOCAL="1",
        HARNESS_PAYLOAD_KEY=PAYLOAD_KEY,
    )
    if config is not None:
        env["HARNESS_HOOKS_CONFIG"] = str(config)
    env.update(extra)
    return {k: v for k, v in env.items() if v}


async def refusal(env: dict[str, str], *command: str) -> str:
    """Start the bot (``python -m bot``, or ``command``), expect status 2; its one log line."""
    process = await asyncio.create_subprocess_exec(
        *(command or (sys.executable, "-m", "bot")),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    assert out == b"" and "Traceback" not in log and "bot listening" not in log, log
    [line] = log.splitlines()
    return line


async def listening_line(env: dict[str, str]) -> str:
    """Start the bot and return its "bot listening" log line, then stop it."""
    return (await start_log(env))[-1]


async def start_log(env: dict[str, str]) -> list[str]:
    """Start the bot and return its log lines up to "bot listening", then stop it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(30):
            while not lines or "bot listening" not in lines[-1]:
                line = await process.stderr.readline()
                assert line, "bot exited: " + "".join(lines)
                lines.append(line.decode())
    finally:
        process.terminate()
        await process.wait()
    return lines


async def test_a_bot_token_without_a_signing_secret_stops_the_bot_naming_the_variable(tmp_path):
    line = await refusal(bot_env(tmp_path, BOT_LOCAL="", SLACK_BOT_TOKEN="xoxb-1-2-abc"))
    assert " ERROR bot not starting: SLACK_SIGNING_SECRET is not set: set it from " in line
    assert "SLACK_BOT_TOKEN is" not in line and "or set BOT_LOCAL=1 to run locally" in line


async def test_no_slack_credentials_and_no_local_mode_stops_the_bot_naming_both(tmp_path):
    line = await refusal(bot_env(tmp_path, BOT_LOCAL=""))
    assert " ERROR bot not starting: SLACK_SIGNING_SECRET and SLACK_BOT_TOKEN are not set: " in line
    assert "BOT_LOCAL=1" in line


async def test_a_signing_secret_without_a_bot_token_stops_the_bot(tmp_path):
    line = await refusal(bot_env(tmp_path, BOT_LOCAL="", SLACK_SIGNING_SECRET="s3cret"))
    assert "not starting: SLACK_BOT_TOKEN is not set" in line and "s3cret" not in line


async def test_local_mode_on_a_public_host_refuses_to_start(tmp_path):
    line = await refusal(bot_env(tmp_path, BOT_HOST="0.0.0.0"))
    assert " ERROR bot not starting: BOT_LOCAL=1 " in line
    assert "BOT_HOST=0.0.0.0 is not one: set BOT_HOST=127.0.0.1" in line


async def test_no_payload_key_stops_the_bot_naming_the_variable_and_the_fix(tmp_path):
    line = await refusal(bot_env(tmp_path, HARNESS_PAYLOAD_KEY=""))
    assert " ERROR bot not starting: HARNESS_PAYLOAD_KEY: not set, and there is no key " in line
    assert " -m harness.temporal.keys ensure " in line


async def test_a_bad_payload_key_is_named_but_never_shown(tmp_path):
    line = await refusal(bot_env(tmp_path, HARNESS_PAYLOAD_KEY="not-a-key-zzzz"))
    assert "not starting: HARNESS_PAYLOAD_KEY" in line and "not-a-key-zzzz" not in line


async def test_the_mode_is_logged_when_the_bot_listens(tmp_path):
    local = await listening_line(bot_env(tmp_path))
    assert local.rstrip().endswith(
        "/slack/events, local mode (the development signing secret, Web API stand-in, "
        "loopback only)"
    )
    given = await listening_line(bot_env(tmp_path, SLACK_SIGNING_SECRET="own-secret"))
    assert "local mode (SLACK_SIGNING_SECRET, Web API stand-in" in given
    http_log = await start_log(
        bot_env(tmp_path, BOT_LOCAL="", SLACK_SIGNING_SECRET="s", SLACK_BOT_TOKEN="xoxb-1-2-abc")
    )
    assert http_log[-1].rstrip().endswith("/slack/events, HTTP mode")
    # Nothing to warn about in a correct set-up (bolt's "`token` will be unused" included).
    assert not [line for line in http_log if " WARNING " in line], http_log


async def test_a_bad_hooks_file_stops_the_bot_naming_the_problem(tmp_path):
    config = tmp_path / "hooks.toml"
    config.write_text('[[executor]]\nkind = "local"\npoints = "nope.pre"\ntarget = "m:a"\n')
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=bot_env(tmp_path, config),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    assert f"ERROR bot not starting: invalid hooks configuration {config}:" in log
    assert "executor[0]: field 'points': 'nope.pre' matches no hook point" in log
    assert "bot listening" not in log and "Traceback" not in log


async def test_a_good_hooks_file_is_logged_as_chains_before_the_bot_listens(tmp_path):
    config = tmp_path / "hooks.toml"
    config.write_text(
        f'[[executor]]\nname = "tagger"\nkind = "local"\n'
        f'points = "command.invoked.pre"\npriority = 150\ntarget = "{TAGGER}"\n'
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=bot_env(tmp_path, config),
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(30):
            while not lines or "bot listening" not in lines[-1]:
                line = await process.stderr.readline()
                assert line, "bot exited: " + "".join(lines)
                lines.append(line.decode())
    finally:
        process.terminate()
        await process.wait()
    [pre] = [line for line in lines if "hook chain command.invoked.pre:" in line]
    assert pre.rstrip().endswith(
        "99 commands.guard.IdentitySeal.check (local, normal), "
        "100 commands.guard.RoleGuard (local, normal), 150 tagger (local, normal)"
    )
    assert any(f"hooks configuration {config} is valid" in line for line in lines)


async def test_a_local_mode_that_is_not_a_yes_or_no_stops_the_bot_naming_it(tmp_path):
    line = await refusal(bot_env(tmp_path, BOT_LOCAL="maybe"))
    assert " ERROR bot not starting: BOT_LOCAL: Input should be a valid boolean" in line


async def test_bad_settings_of_either_class_are_one_line_naming_the_variable(tmp_path):
    """Bad JSON or a bad number in HARNESS_* or BOT_*: named, said to be JSON, exit 2 (issue 11)."""
    script = str(Path(sys.executable).with_name("tiny-harness-bot"))
    cases = [
        (
            {"HARNESS_MODELS": "[oops"},
            (script,),
            """HARNESS_MODELS must be JSON (Expecting value: line 1 column 2 (char 1)), e.g. """
            """HARNESS_MODELS='["offline", "gpt-4o"]'"""
            + QUOTES_STRIPPED,  # "[oops" may be JSON whose quotes honcho stripped
        ),
        (
            {"HARNESS_PLUGINS": "commands:plugin"},
            (),
            """HARNESS_PLUGINS must be JSON (Expecting value: line 1 column 1 (char 0)), e.g. """
            """HARNESS_PLUGINS='["commands:plugin"]'""",
        ),
        (
            {"BOT_SHUTDOWN_GRACE_SECONDS": "soon"},
            (),
            "BOT_SHUTDOWN_GRACE_SECONDS: Input should be a valid number, unable to parse string "
            "as a number",
        ),
    ]
    lines = await asyncio.gather(
        *(refusal(bot_env(tmp_path, **env), *command) for env, command, _ in cases)
    )
    for (_, _, expected), line in zip(cases, lines, strict=True):
        assert line.split(" ERROR bot not starting: ", 1)[1] == expected


async def test_a_database_the_bot_cannot_reach_stops_it_in_one_line_without_the_password(tmp_path):
    """The ledger is the bot's memory of Slack's retries: no database, no bot (issue 13)."""
    url = f"postgresql://bot:s3cret-pw@127.0.0.1:{free_port()}/harness"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=bot_env(tmp_path, HARNESS_DATABASE_URL=url),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    [line] = [line for line in log.splitlines() if " ERROR " in line]
    assert " ERROR bot not starting: postgresql+asyncpg://bot:[REDACTED]@127.0.0.1:" in line, line
    assert "check that it is running and reachable" in line
    assert "s3cret-pw" not in log and "bot listening" not in log and "Traceback" not in log


async def test_a_database_url_of_another_engine_is_refused_saying_what_to_give(tmp_path):
    line = await refusal(bot_env(tmp_path, HARNESS_DATABASE_URL="mysql://bot:pw@db/harness"))
    assert line.endswith(
        " ERROR bot not starting: HARNESS_DATABASE_URL: engine 'mysql' is not "
        "supported; give postgresql://HOST:5432/DATABASE (with USER:PASSWORD@ "
        "before the host), or unset it for SQLite"
    )


async def test_a_serving_bot_has_its_start_up_heap_out_of_the_collectors_way(tmp_path):
    """A full collection while the bot serves walks only what it made since it listens, not
    the ~140,000 objects of its imports: 80-110 ms of CPU each, no ack going out meanwhile,
    three of them in a run of bench/slack_ack.py (issue 27)."""
    port = free_port()
    settings = BotSettings(
        _env_file=None, local=True, host="127.0.0.1", port=port, data_dir=tmp_path
    )
    harness = Settings(_env_file=None, payload_key=PAYLOAD_KEY, data_dir=tmp_path)
    stop = asyncio.Event()
    gc.unfreeze()
    serving = asyncio.create_task(serve(settings, harness, stop))
    try:
        async with asyncio.timeout(30):
            while True:  # listening
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    await asyncio.sleep(0.05)
                else:
                    writer.close()
                    break
        tracked, frozen = len(gc.get_objects()), gc.get_freeze_count()
    finally:
        stop.set()
        await asyncio.wait_for(serving, 30)
        gc.unfreeze()  # this test process collects as before

    assert frozen > 10 * tracked, (frozen, tracked)
