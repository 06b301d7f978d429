"""Plugins loaded by worker subprocesses in tests through ``HARNESS_PLUGINS``.

``crash_plugin`` records every point it sees to a JSON-lines file (the process is
SIGKILLed, so nothing in memory survives) and hangs in ``persistence.write.post``
for a message containing ``block-me``, after the write was applied: the moment a
crash is most likely to apply something twice.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from harness.hooks import PHASES, HookManager
from harness.hooks.contexts import CommandEffect, CommandResult

RECORDED = ("task.created", "task.state_changed", "task.complete", "persistence.write",
            "command.invoked")  # fmt: skip


def crash_plugin(manager: HookManager, settings: object) -> None:
    log = Path(os.environ["HARNESS_TEST_LOG"])
    marker = Path(os.environ["HARNESS_TEST_MARKER"])

    for operation in RECORDED:
        for phase in PHASES:
            point = f"{operation}.{phase}"

            async def record(ctx, point=point):
                line = {"point": point, "attempt": ctx.attempt, "key": ctx.idempotency_key,
                        "ctx": ctx.model_dump(mode="json")}  # fmt: skip
                with log.open("a") as out:
                    out.write(json.dumps(line) + "\n")

            manager.register(point, record, priority=1)

    async def hang_after_write(ctx):
        if "block-me" in ctx.content:
            marker.write_text(ctx.idempotency_key)
            await asyncio.sleep(3600)

    manager.register("persistence.write.post", hang_after_write)
    manager.register("command.invoked.in", model_command)


async def model_command(ctx):
    """Issue 4's ``/model <x>`` in miniature: reply and one effect."""
    if ctx.command != "model":
        return None
    effects = (CommandEffect(kind="set_model", value=ctx.args),)
    return ctx.model_copy(update={"result": CommandResult(reply="ok", effects=effects)})


def leaky_plugin(manager: HookManager, settings: object) -> None:
    """Logs the configured OpenAI key (of no known shape) at start and on every task.created.

    What careless plugin code does; the worker must still never print the key.
    """
    import logging

    log = logging.getLogger("tests.leaky")
    secret = settings.openai_api_key.get_secret_value()  # type: ignore[attr-defined]
    log.warning("plugin loaded with key %s", secret)

    async def leak(ctx):
        log.info("task.created sees %s", secret)
        raise RuntimeError(f"upstream refused key {secret}")

    manager.register("task.created.pre", leak)
