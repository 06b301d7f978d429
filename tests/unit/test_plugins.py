"""Code plugins by path, and the chains a worker would run, shown without a worker.

The CLI runs as a user runs it (a subprocess), or through the same ``main`` in this process
where only its output is read; the plugin is the real ``commands`` package, loaded by its
``module:function`` string.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from commands import COMMANDS
from harness.config import Settings
from harness.hooks import HookConfigError
from harness.hooks.__main__ import main
from harness.plugins import effective_manager, load_plugin
from tests.support.cli import harness_env, run_here


def hooks_list(*args: str, plugins: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env["HARNESS_PLUGINS"] = plugins
    return subprocess.run(
        [sys.executable, "-m", "harness.hooks", "list", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def chain(stdout: str, point: str) -> list[list[str]]:
    lines = stdout.splitlines()
    at = lines.index(point) + 1
    rows = []
    while at < len(lines) and lines[at].startswith(" "):
        rows.append(lines[at].split())
        at += 1
    return rows


@pytest.fixture(scope="module")
def commands_listing() -> subprocess.CompletedProcess[str]:
    """One ``list`` run with the commands' plugin, which the two tests below read."""
    return hooks_list(plugins='["commands:plugin"]')


def test_cli_list_shows_the_commands_plugin_from_harness_plugins(commands_listing):
    run = commands_listing
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "# chains from the built-in plugin, commands:plugin"
    pre = chain(run.stdout, "command.invoked.pre")
    assert ["100", "commands.guard.RoleGuard", "local", "normal"] in pre
    bodies = [row[1] for row in chain(run.stdout, "command.invoked.in")]
    assert bodies == list(COMMANDS)


def test_cli_list_shows_the_identity_seal_as_first_and_last_not_as_2_to_the_62(commands_listing):
    run = commands_listing
    assert run.returncode == 0, run.stderr
    pre, post = chain(run.stdout, "command.invoked.pre"), chain(run.stdout, "command.invoked.post")
    assert pre[0][:2] == ["first", "commands.guard.IdentitySeal.open"]
    assert post[-1][:2] == ["last", "commands.guard.IdentitySeal.close"]
    assert "4611686018427387904" not in run.stdout


def test_cli_list_into_a_closed_pipe_exits_quietly():
    """``list | head``: the reader goes away; no BrokenPipeError traceback, SIGPIPE's status."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.hooks", "list"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # before the first line is written: every write hits a closed pipe
    _, stderr = process.communicate(timeout=60)
    assert (process.returncode, stderr.decode()) == (141, "")


def hooks_list_here(capsys, monkeypatch, plugins: str) -> subprocess.CompletedProcess[str]:
    """:func:`hooks_list` through the same ``main`` in this process, in the same environment."""
    harness_env(monkeypatch, HARNESS_PLUGINS=plugins)
    return run_here(main, ["list"], capsys)


def test_cli_list_without_plugins_has_no_role_guard(capsys, monkeypatch):
    run = hooks_list_here(capsys, monkeypatch, plugins="[]")
    assert run.returncode == 0, run.stderr
    assert "commands.guard.RoleGuard" not in run.stdout


def test_cli_list_names_a_plugin_path_that_does_not_resolve(capsys, monkeypatch):
    run = hooks_list_here(capsys, monkeypatch, plugins='["commands:nope"]')
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "invalid hooks configuration HARNESS_PLUGINS:",
        "  - commands:nope: 'commands' has no attribute 'nope'",
    ]


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        (
            "no_such_module_xyz:register",
            "no_such_module_xyz:register: cannot import 'no_such_module_xyz': "
            "No module named 'no_such_module_xyz'",
        ),
        ("commands:COMMANDS", "commands:COMMANDS: is not callable"),
    ],
    ids=["missing-module", "not-callable"],
)
def test_load_plugin_names_the_problem(path, problem):
    with pytest.raises(HookConfigError) as caught:
        load_plugin(path)
    assert (caught.value.source, caught.value.problems) == ("HARNESS_PLUGINS", [problem])


async def test_effective_manager_registers_plugins_before_the_file(tmp_path):
    """The worker's order: a file entry at the guard's priority runs after the guard."""
    config = tmp_path / "hooks.toml"
    config.write_text(
        '[[executor]]\nname = "late"\nkind = "local"\n'
        'points = "command.invoked.pre"\npriority = 100\n'
        f'target = "{__name__}:passthrough"\n'
    )
    settings = Settings(_env_file=None, plugins=["commands:plugin"])  # type: ignore[call-arg]
    async with effective_manager(settings, config=config) as manager:
        names = [r.name for r in manager.registrations("command.invoked.pre") if r.priority == 100]
    assert names == ["commands.guard.RoleGuard", "late"]


async def passthrough(ctx):
    return None


async def test_cli_list_shows_what_the_worker_registers_in_its_order(tmp_path):
    """``list`` and the worker's ``registered <point> <priority> <name>`` lines agree."""
    from harness.hooks.__main__ import priority_label
    from harness.storage import open_database
    from harness.temporal.worker import build_manager, describe

    config = tmp_path / "hooks.toml"
    config.write_text(
        '[[executor]]\nname = "late"\nkind = "local"\n'
        'points = "command.invoked.pre"\npriority = 100\n'
        f'target = "{__name__}:passthrough"\n'
    )
    run = hooks_list("--config", str(config), plugins='["commands:plugin"]')
    assert run.returncode == 0, run.stderr
    listed, point = [], ""
    for line in run.stdout.splitlines()[1:]:
        if line.startswith(" "):
            priority, name, *_ = line.split()
            listed.append((point, priority, name))
        else:
            point = line
    settings = Settings(
        _env_file=None,
        plugins=["commands:plugin"],
        hooks_config=config,  # type: ignore[call-arg]
        data_dir=tmp_path,
    )
    database = await open_database(settings.database)
    manager = build_manager(settings, database)
    try:
        worker = [line.split(" ") for line in describe(manager)]
    finally:
        await manager.aclose()
        await database.aclose()
    assert listed == [(p, priority_label(int(priority)), name) for p, priority, name in worker]
    assert ("command.invoked.pre", "100", "late") in listed


async def test_the_worker_registers_the_approval_policy_and_hands_tasks_its_default(tmp_path):
    """Issue 14: every worker has the policy (last pre validator) and its audit; a task that
    has not chosen an approval default follows the hooks file's, read with its loop defaults."""
    from harness.agent.state import LOOP_DEFAULTS_KEY, AgentState, LoopDefaults
    from harness.hooks.contexts import PersistenceReadContext

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    async with effective_manager(settings) as manager:
        (policy,) = [r for r in manager.registrations("tool.invoked.pre") if r.name == "approvals"]
        assert (policy.priority, policy.mode) == (900, "validator")
        assert "approvals-audit" in [r.name for r in manager.registrations("help.decided.post")]
        read = await manager.run("persistence.read", PersistenceReadContext(key=LOOP_DEFAULTS_KEY))
        assert LoopDefaults.model_validate_json(read.result.content).approvals == "safe"
    config = tmp_path / "hooks.toml"
    config.write_text('[approvals]\ndefault = "strict"\n')
    async with effective_manager(settings, config=config) as manager:
        read = await manager.run("persistence.read", PersistenceReadContext(key=LOOP_DEFAULTS_KEY))
    defaults = LoopDefaults.model_validate_json(read.result.content)
    assert defaults.approvals == "strict"
    state = AgentState(can_ask=False)
    defaults.apply(state)
    assert state.default_approvals == "strict" and state.approvals is None
    assert state.always_asked("echo") is False  # safe, whatever the default
    assert state.always_asked("write_artefact") is True
