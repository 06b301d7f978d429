"""Issue 15, point 5 in a real worker process: SIGHUP reloads the hooks file between operations.

One worker subprocess (``python -m harness.worker``) on the dev server runs one task whose
messages drive ``persistence.write``. The file's JSON-RPC executor at
``persistence.write.pre`` is served by a real aiohttp server in this process counting
requests per path: after an edit and a SIGHUP the task's next operation calls the new
endpoint; a broken file is refused and the chain it replaced keeps running.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from aiohttp import web

from harness.domain import ChannelMessage, TaskSpec
from harness.hook_server import jsonrpc_app
from harness.storage.audit import recent_audit

from .conftest import ROOT, worker_env


@pytest.fixture
async def endpoints():
    """``/a/`` and ``/b/``: pass-through ``persistence.write.pre`` executors counting calls."""
    counts: Counter[str] = Counter()

    def counting(name: str):
        async def handler(ctx):
            counts[name] += 1

        return handler

    app = web.Application()
    for name in ("a", "b"):
        app.add_subapp(f"/{name}", jsonrpc_app({"persistence.write.pre": counting(name)}))
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield f"http://127.0.0.1:{port}", counts
    await runner.cleanup()


def executor(name: str, url: str) -> str:
    return (
        f'[[executor]]\nname = "{name}"\nkind = "jsonrpc"\n'
        f'points = "persistence.write.pre"\nurl = "{url}"\n'
    )


class Log:
    """The worker's stderr, read by a thread so the pipe never fills."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self._process = process
        self._thread = threading.Thread(target=self._pump, args=(process,), daemon=True)
        self._thread.start()

    def _pump(self, process: subprocess.Popen[str]) -> None:
        for line in process.stderr:  # type: ignore[union-attr]
            self.lines.append(line)

    async def wait_for(self, text: str, *, after: int = 0, timeout: float = 30) -> int:
        """The index of the first line from ``after`` holding ``text``."""
        async with asyncio.timeout(timeout):
            while True:
                for index in range(after, len(self.lines)):
                    if text in self.lines[index]:
                        return index
                await asyncio.sleep(0.02)

    def text(self) -> str:
        """Everything the worker wrote, once it has exited."""
        self._thread.join(15)
        self._process.stderr.close()  # type: ignore[union-attr]
        return "".join(self.lines)


async def test_sighup_swaps_the_next_operation_to_the_new_chain_and_refuses_a_broken_file(
    settings, harness, endpoints, tmp_path: Path
):
    url, counts = endpoints
    hooks = tmp_path / "hooks.toml"
    hooks.write_text(executor("checker-a", f"{url}/a/"))
    worker = subprocess.Popen(
        [sys.executable, "-m", "harness.worker"],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
        env=worker_env(settings, HARNESS_HOOKS_CONFIG=str(hooks)),
    )
    log = Log(worker)
    try:
        await log.wait_for("task queue")
        ref = await harness.start_task(
            TaskSpec(title="t", owner="U1"), team="T1", channel="CR", thread="5.0"
        )

        def message(n: int) -> ChannelMessage:
            return ChannelMessage(channel="CR", thread="5.0", user="U1", text=f"m{n}", ts=f"5.{n}")

        assert await harness.send_message(ref.task_id, message(1)) == 1
        assert counts == {"a": 1}

        hooks.write_text(executor("checker-b", f"{url}/b/"))
        worker.send_signal(signal.SIGHUP)
        done = await log.wait_for(
            "reloaded: applied (by SIGHUP): added checker-b; removed checker-a"
        )
        assert await harness.send_message(ref.task_id, message(2)) == 2
        assert counts == {"a": 1, "b": 1}  # the next operation ran the new chain only

        hooks.write_text(executor("checker-c", "ftp://nowhere"))
        worker.send_signal(signal.SIGHUP)
        await log.wait_for("not reloaded (by SIGHUP), the running chains are kept", after=done)
        assert await harness.send_message(ref.task_id, message(3)) == 3
        assert counts == {"a": 1, "b": 2}  # the chain before the broken file still runs
    finally:
        worker.send_signal(signal.SIGTERM)
        await asyncio.to_thread(worker.wait, 30)
    output = log.text()
    assert "line 1: executor[0] ('checker-c'): field 'url': 'ftp://nowhere'" in output
    assert worker.returncode == 0 and "Traceback" not in output
    assert "closed the executors the reload removed or changed: checker-a" in output

    audited = [r for r in await recent_audit(settings.database, 50) if r.kind == "reload"]
    assert [r.reason.split(" (")[0] for r in audited] == ["applied", "refused"]
    assert all(r.point == str(hooks) and r.executor.endswith(f"pid {worker.pid}") for r in audited)
    assert "'ftp://nowhere' is not an http:// or https:// URL" in audited[1].reason
