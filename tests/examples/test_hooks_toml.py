"""examples/hooks.toml, loaded by the worker's own manager against the running example servers.

The worker builds its manager with :func:`harness.temporal.worker.build_manager`; here it
reads the shipped file, which starts the MCP rewriter itself (stdio, next to the file)
and calls the JSON-RPC policy started as its header says. The one change: the file is
copied, with the example's MCP server beside it, and the policy's port replaced by the
test's free port (the shipped 8765 may be taken while suites run side by side).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from harness.config import Settings
from harness.domain import HelpDecision, TaskRef, ToolCall
from harness.hooks import HookAbort
from harness.hooks.contexts import ToolInvokedContext
from harness.storage import open_database
from harness.temporal.worker import build_manager

from .conftest import EXAMPLES, ROOT

SHIPPED_URL = "http://127.0.0.1:8765/hooks"


@pytest.fixture(scope="module")
async def manager(policy, tmp_path_factory):
    """The worker's manager with the example file; POLICY_TOKEN set as the header says."""
    text = (EXAMPLES / "hooks.toml").read_text()
    assert text.count(SHIPPED_URL) == 1
    config = tmp_path_factory.mktemp("examples") / "hooks.toml"
    config.write_text(text.replace(SHIPPED_URL, policy.url))
    shutil.copy(EXAMPLES / "mcp_rewriter.py", config.parent)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("POLICY_TOKEN", policy.token)
        settings = Settings(hooks_config=config, data_dir=config.parent)
        database = await open_database(settings.database)
        built = build_manager(settings, database)
    yield built
    await built.aclose()
    await database.aclose()


def write(name: str, content: str = "step 1") -> ToolInvokedContext:
    """A write a person approved (the approval policy asks before every write otherwise)."""
    task = TaskRef(task_id="task/T1/C1", team="T1", channel="C1")
    tool = ToolCall(id="c1", name="write_artefact", arguments={"name": name, "content": content})
    approval = HelpDecision(request_id="h1", decided_by="U1", choice="Approve", approved=True)
    return ToolInvokedContext(task=task, correlation_id="corr-ex", call=tool, approval=approval)


def read(name: str) -> ToolInvokedContext:
    ctx = write(name)
    return ctx.model_copy(
        update={"call": ToolCall(id="c2", name="read_artefact", arguments={"name": name})}
    )


async def test_an_invented_name_is_rewritten_by_the_mcp_server_and_written(manager):
    out = await manager.run("tool.invoked", write("Notes/Plan v2.md"))
    assert out.call.arguments["name"] == "plan-v2.md"
    assert out.result is not None and not out.result.is_error
    back = await manager.run("tool.invoked", read("Notes/Plan v2.md"))
    assert back.result is not None and back.result.content == "step 1"


async def test_the_remote_policy_refuses_what_the_rewrite_made_final(manager):
    # "Final Report.md" is only a final- artefact after the rewrite: the validator sees it so.
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", write("Final Report.md"))
    assert info.value.refusal and info.value.executor == "remote-policy"
    assert "final-" in info.value.reason
    missing = await manager.run("tool.invoked", read("final-report.md"))
    assert missing.result is not None and missing.result.is_error  # nothing was written


async def test_the_built_in_policy_refuses_key_files(manager):
    with pytest.raises(HookAbort) as info:
        await manager.run("tool.invoked", write("server.KEY"))
    assert info.value.refusal and info.value.executor == "policy"
    assert "key files are not stored as artefacts" in info.value.reason


def test_the_list_command_of_the_header_shows_the_chains(policy):
    env = {**os.environ, "POLICY_TOKEN": policy.token, "HARNESS_PLUGINS": '["commands:plugin"]'}
    out = subprocess.run(
        [sys.executable, "-m", "harness.hooks", "list", "--config", "examples/hooks.toml"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    chain = out.split("tool.invoked.pre\n")[1].split("tool.invoked.in")[0].split()
    assert chain[chain.index("policy") - 1] == "50"
    assert chain[chain.index("plain-artefact-names") - 1] == "80"
    assert chain[chain.index("remote-policy") - 1] == "100"
    assert chain[chain.index("remote-policy") + 2] == "validator"
