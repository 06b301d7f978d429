"""Audit (issue 6): aborts, refusals, transport errors and ignored failures land in the store."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from harness.audit_store import SqliteAuditStore, recent_audit
from harness.hooks import HookAbort, HookManager, HookTransportError, JsonRpcExecutor


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def store(tmp_path):
    store = SqliteAuditStore(tmp_path / "artefacts.sqlite3")
    yield store
    store.close()


async def test_aborts_refusals_and_transport_errors_are_written_with_ids(store, tool_ctx, tmp_path):
    manager = HookManager()
    manager.audit.sinks.append(store)

    async def veto(ctx):
        raise HookAbort("not this tool", refusal=True)

    handle = manager.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    manager.unregister(handle)

    down = JsonRpcExecutor(f"http://127.0.0.1:{closed_port()}/", point="tool.invoked.pre",
                           timeout=2, name="down-policy")  # fmt: skip
    manager.register("tool.invoked.pre", down)
    with pytest.raises(HookTransportError):
        await manager.run("tool.invoked", tool_ctx)
    await manager.aclose()

    refusal, transport = store.last(10)
    assert (refusal.kind, refusal.point, refusal.reason) == (
        "refusal", "tool.invoked.pre", "not this tool"
    )  # fmt: skip
    assert refusal.executor.endswith("veto")
    assert transport.kind == "transport_error" and transport.point == "tool.invoked.pre"
    for record in (refusal, transport):
        assert (record.correlation_id, record.task_id) == ("corr-1", "T1")
    # What /status would call: the store's history, also after this manager is gone.
    assert manager.audit.recent(1) == [transport]
    path = tmp_path / "artefacts.sqlite3"
    assert recent_audit(path, 5, task_id="T1") == [refusal, transport]
    assert recent_audit(path, 5, task_id="other") == []


def test_a_failing_sink_never_changes_the_operation(tool_ctx):
    class Down:
        def write(self, record):
            raise OSError("disk full")

    manager = HookManager()
    manager.audit.sinks.append(Down())
    record = manager.audit.record("abort", point="p", executor="e", reason="r", ctx=tool_ctx)
    assert manager.audit.last() == [record]


def test_cli_shows_the_last_records(store, tool_ctx, tmp_path):
    manager = HookManager()
    manager.audit.sinks.append(store)
    for n in range(3):
        manager.audit.record("ignored_failure", point="tool.invoked.pre", executor=f"e{n}",
                             reason=f"failure {n}", ctx=tool_ctx)  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "harness.hooks", "audit", "--last", "2",
         "--db", str(tmp_path / "artefacts.sqlite3")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert len(lines) == 2
    assert "e1" in lines[0] and "failure 1" in lines[0] and "e2" in lines[1]
    assert "task=T1 corr=corr-1" in lines[1] and "ignored_failure" in lines[1]
