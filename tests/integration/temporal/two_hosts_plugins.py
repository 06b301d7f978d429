"""A plugin for the two-host test's worker subprocesses: refuses the ``clock`` tool, naming the
host (``HARNESS_TEST_HOST``), so each worker writes an audit record the other can tell apart."""

from __future__ import annotations

import os

from harness.hooks import HookAbort, HookManager


def refuse_clock(manager: HookManager, settings: object) -> None:
    host = os.environ["HARNESS_TEST_HOST"]

    async def refuse(ctx):
        if ctx.call.name == "clock":
            raise HookAbort(f"clock refused on host {host}", refusal=True)
        return None

    manager.register("tool.invoked.pre", refuse, priority=50)
