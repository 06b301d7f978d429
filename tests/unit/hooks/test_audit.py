"""Audit (issue 6): aborts, refusals, transport errors and ignored failures land in the store."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from harness.hooks import HookAbort, HookManager, HookTransportError, JsonRpcExecutor
from harness.hooks.__main__ import main
from harness.storage import database_url, open_database
from harness.storage.audit import SqlAuditStore, recent_audit
from tests.support.cli import run_here


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def store(tmp_path):
    database = await open_database(database_url("", tmp_path / "artefacts.sqlite3"))
    store = SqlAuditStore(database)
    yield store
    await store.aclose()
    await database.aclose()


async def test_aborts_refusals_and_transport_errors_are_written_with_ids(store, tool_ctx, tmp_path):
    manager = HookManager()
    manager.audit.sinks.append(store)

    async def veto(ctx):
        raise HookAbort("not this tool", refusal=True)

    handle = manager.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    manager.unregister(handle)

    down = JsonRpcExecutor(
        f"http://127.0.0.1:{closed_port()}/",
        point="tool.invoked.pre",
        timeout=2,
        name="down-policy",
    )
    manager.register("tool.invoked.pre", down)
    with pytest.raises(HookTransportError):
        await manager.run("tool.invoked", tool_ctx)
    await manager.aclose()

    refusal, transport = await store.last(10)
    assert (refusal.kind, refusal.point, refusal.reason) == (
        "refusal",
        "tool.invoked.pre",
        "not this tool",
    )
    assert refusal.executor.endswith("veto")
    assert transport.kind == "transport_error" and transport.point == "tool.invoked.pre"
    for record in (refusal, transport):
        assert (record.correlation_id, record.task_id) == ("corr-1", "T1")
    # What /status would call: the store's history, also after this manager is gone.
    assert await manager.audit.recent(1) == [transport]
    url = store.database.engine.url
    assert await recent_audit(url, 5, task_id="T1") == [refusal, transport]
    assert await recent_audit(url, 5, task_id="other") == []


def test_a_failing_sink_never_changes_the_operation(tool_ctx):
    class Down:
        def write(self, record):
            raise OSError("disk full")

    manager = HookManager()
    manager.audit.sinks.append(Down())
    record = manager.audit.record("abort", point="p", executor="e", reason="r", ctx=tool_ctx)
    assert manager.audit.last() == [record]


async def test_cli_shows_the_last_records(store, tool_ctx, tmp_path):
    manager = HookManager()
    manager.audit.sinks.append(store)
    for n in range(3):
        manager.audit.record(
            "ignored_failure",
            point="tool.invoked.pre",
            executor=f"e{n}",
            reason=f"failure {n}",
            ctx=tool_ctx,
        )
    await store.flush()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness.hooks",
            "audit",
            "--last",
            "2",
            "--database",
            f"sqlite:///{tmp_path / 'artefacts.sqlite3'}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert "e1" in lines[0] and "failure 1" in lines[0] and "e2" in lines[1]
    assert "task=T1 corr=corr-1" in lines[1] and "ignored_failure" in lines[1]


def test_cli_names_an_unreachable_database_in_one_line_without_its_password(tmp_path, capsys):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    database = f"postgresql://u:pw-s3cret@127.0.0.1:{port}/x"
    run = run_here(main, ["audit", "--database", database], capsys)  # the same main, in-process
    assert run.returncode == 2
    assert f"127.0.0.1:{port}" in run.stderr and "pw-s3cret" not in run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1
