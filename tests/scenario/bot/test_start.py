"""``python -m bot`` checks the hooks configuration at start, as the worker does (issue 6).

Run as a user runs it, a subprocess with the settings in its environment; Temporal
is not needed to start the bot, so none is given.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[3]
TAGGER = "tests.unit.test_plugins:passthrough"


def bot_env(tmp_path: Path, config: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "BOT_", "SLACK_"))}
    env.update(HARNESS_HOOKS_CONFIG=str(config), HARNESS_PLUGINS='["commands:plugin"]',
               HARNESS_DATA_DIR=str(tmp_path), BOT_PORT=str(free_port()))  # fmt: skip
    return env


async def test_a_bad_hooks_file_stops_the_bot_naming_the_problem(tmp_path):
    config = tmp_path / "hooks.toml"
    config.write_text('[[executor]]\nkind = "local"\npoints = "nope.pre"\ntarget = "m:a"\n')
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=bot_env(tmp_path, config),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    assert f"ERROR bot not starting: invalid hooks configuration {config}:" in log
    assert "executor[0]: field 'points': 'nope.pre' matches no hook point" in log
    assert "bot listening" not in log and "Traceback" not in log


async def test_a_good_hooks_file_is_logged_as_chains_before_the_bot_listens(tmp_path):
    config = tmp_path / "hooks.toml"
    config.write_text(f'[[executor]]\nname = "tagger"\nkind = "local"\n'
                      f'points = "command.invoked.pre"\npriority = 150\ntarget = "{TAGGER}"\n')
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=ROOT, env=bot_env(tmp_path, config),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
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
