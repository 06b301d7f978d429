"""The worker refuses to start in one line and exit status 2, whatever stops it (issue 11).

Run as an operator runs it: ``python -m harness.worker`` (and the installed
``tiny-harness-worker``) as subprocesses, the bad input in their environment. Each
refusal happens before Temporal would be reached, so the address points nowhere.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

from ..conftest import PAYLOAD_KEY

ROOT = Path(__file__).resolve().parents[4]
SCRIPT = Path(sys.executable).with_name("tiny-harness-worker")


def worker_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    ours = ("HARNESS_", "BOT_", "SLACK_", "TEMPORAL_", "OTEL_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.update(
        HARNESS_DATA_DIR=str(tmp_path),
        HARNESS_PAYLOAD_KEY=PAYLOAD_KEY,
        HARNESS_TEMPORAL_ADDRESS="127.0.0.1:1",
    )
    env.update(extra)
    return {k: v for k, v in env.items() if v}


async def refusal(env: dict[str, str], *command: str) -> str:
    """Start the worker; it must exit 2 with exactly one ``worker not starting`` line, no trace."""
    process = await asyncio.create_subprocess_exec(
        *(command or (sys.executable, "-m", "harness.worker")),
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    log = err.decode()
    assert process.returncode == 2, log
    assert "Traceback" not in log and "worker on " not in log and out == b"", log
    [line] = [line for line in log.splitlines() if "not starting" in line]
    assert line.startswith("worker not starting: "), log
    return line.removeprefix("worker not starting: ")


CASES = {
    "models-not-json": (
        {"HARNESS_MODELS": "[oops"},
        """HARNESS_MODELS must be JSON (Expecting value: line 1 column 2 (char 1)), e.g. """
        """HARNESS_MODELS='["offline", "gpt-4o"]'""",
    ),
    "agents-wrong-shape": (
        {"HARNESS_AGENTS": '{"reviewer": "be kind"}'},
        "HARNESS_AGENTS (at 'reviewer'): Input should be a valid dictionary",
    ),
    "mcp-servers-not-json": (
        {"HARNESS_MCP_TOOL_SERVERS": "files"},
        "HARNESS_MCP_TOOL_SERVERS must be JSON (",
    ),
    "model-without-provider": (
        {"HARNESS_MODELS": '["gpt-4o"]'},
        "HARNESS_MODELS names 'gpt-4o', which needs the openai provider: set "
        "HARNESS_OPENAI_API_KEY or HARNESS_OPENAI_BASE_URL, or remove it from HARNESS_MODELS",
    ),
    "deployment-name-with-a-dot": (  # Temporal reads <name>.<build id> up to the first dot
        {"HARNESS_DEPLOYMENT_NAME": "prod.v2"},
        "HARNESS_DEPLOYMENT_NAME: String should match pattern '^[A-Za-z0-9_-]*$'",
    ),
    "plugin-not-importable": (
        {"HARNESS_PLUGINS": '["no_such_module:plugin"]'},
        "invalid hooks configuration HARNESS_PLUGINS: no_such_module:plugin: cannot import",
    ),
}


async def test_each_bad_input_is_one_line_naming_it_and_exit_2(tmp_path):
    assert SCRIPT.exists(), "pip install -e . installs tiny-harness-worker"
    # Concurrently: each is a Python start-up, the suite's budget is seconds. The installed
    # script runs two of the cases, ``python -m harness.worker`` the others.
    scripted = ("models-not-json", "model-without-provider")
    runs = [
        (name, env, expected, (str(SCRIPT),) if name in scripted else ())
        for name, (env, expected) in CASES.items()
    ]
    lines = await asyncio.gather(
        *(refusal(worker_env(tmp_path / name, **env), *command) for name, env, _, command in runs)
    )
    for (name, _, expected, _), line in zip(runs, lines, strict=True):
        assert line.startswith(expected), (name, line)


async def test_a_bad_hooks_file_is_one_line_with_every_problem(tmp_path):
    config = tmp_path / "hooks.toml"
    config.write_text(
        '[[executor]]\nkind = "local"\npoints = "nope.pre"\ntarget = "m:a"\n'
        '[[executor]]\nkind = "carrier-pigeon"\npoints = "shutdown.pre"\n'
    )
    line = await refusal(worker_env(tmp_path, HARNESS_HOOKS_CONFIG=str(config)))
    assert line.startswith(f"invalid hooks configuration {config}: line 1: executor[0]: ")
    assert "'nope.pre' matches no hook point" in line
    assert "; line 5: executor[1]: field 'kind': Input should be 'local'" in line


async def test_a_taken_health_port_is_one_line_naming_the_setting(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = await refusal(worker_env(tmp_path, HARNESS_HEALTH_PORT=str(port)))
    assert line.startswith(f"cannot serve the health endpoints on 127.0.0.1:{port} (")
    assert line.endswith("set HARNESS_HEALTH_PORT to a free port on an address of this host")
