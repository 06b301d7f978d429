"""The operation log (issue 6): one JSON line per chain run, and undo takes it off."""

from __future__ import annotations

import json
import logging

import pytest

from harness.domain import ToolResult
from harness.hooks import HookAbort
from harness.hooks.monitors.oplog import install_operation_log


def set_result(content: str):
    async def body(ctx):
        return ctx.model_copy(update={"result": ToolResult(content=content)})

    return body


async def test_the_operation_log_is_one_json_line_per_chain_and_undo_restores(
    manager, tool_ctx, caplog
):
    async def veto(ctx):
        raise HookAbort("not now")

    manager.register("tool.invoked.in", set_result("ok"))
    undo = install_operation_log(manager)
    caplog.set_level(logging.INFO, logger="harness.hooks.operations")
    await manager.run("tool.invoked", tool_ctx)
    manager.register("tool.invoked.pre", veto)
    with pytest.raises(HookAbort):
        await manager.run("tool.invoked", tool_ctx)
    lines = [json.loads(r.getMessage()) for r in caplog.records]
    assert [(x["point"], x["outcome"]) for x in lines] == [
        ("tool.invoked.in", "ok"),
        ("tool.invoked.pre", "abort"),
    ]
    assert lines[1]["reason"] == "not now" and lines[1]["task_id"] == "T1"
    assert all(x["duration_ms"] >= 0 and x["correlation_id"] == "corr-1" for x in lines)
    undo()
    assert manager.monitors() == ()
