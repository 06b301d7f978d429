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

from harness.domain import CommandResult, SetModel
from harness.hooks import PHASES, HookManager

RECORDED = (
    "task.created",
    "task.state_changed",
    "task.complete",
    "persistence.write",
    "command.invoked",
)


def crash_plugin(manager: HookManager, settings: object) -> None:
    log = Path(os.environ["HARNESS_TEST_LOG"])
    marker = Path(os.environ["HARNESS_TEST_MARKER"])

    for operation in RECORDED:
        for phase in PHASES:
            point = f"{operation}.{phase}"

            async def record(ctx, point=point):
                line = {
                    "point": point,
                    "attempt": ctx.attempt,
                    "key": ctx.idempotency_key,
                    "ctx": ctx.model_dump(mode="json"),
                }
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
    effects = (SetModel(model=ctx.args),)
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


CYCLE_RECORDED = ("task.created", "activity.failed", "activity.retried", "command.invoked")


def cycle_plugin(manager: HookManager, settings: object) -> None:
    """``task.created`` fails at attempts 1 and 2 and succeeds at 3, every retry waits 1 s, and
    the worker stops at one step of that cycle (``HARNESS_TEST_HANG_AT``) the first time.

    Steps: ``operation`` (inside ``task.created``), ``failed`` (inside ``activity.failed``),
    ``retried`` (inside ``activity.retried``), ``backoff`` (just after ``activity.retried``:
    the workflow is sleeping), ``command`` (inside a slash command's body). Reaching the
    step is told to the test over TCP (``HARNESS_TEST_SIGNAL_PORT``) so it kills the worker
    then; ``HARNESS_TEST_MARKER`` makes the next worker go through. Every point is
    appended to ``HARNESS_TEST_LOG`` (JSON lines), whichever worker ran it.
    """
    log = Path(os.environ["HARNESS_TEST_LOG"])
    marker = Path(os.environ["HARNESS_TEST_MARKER"])
    step = os.environ.get("HARNESS_TEST_HANG_AT", "")
    port = int(os.environ.get("HARNESS_TEST_SIGNAL_PORT", "0"))

    for operation in CYCLE_RECORDED:
        for phase in PHASES:
            point = f"{operation}.{phase}"

            async def record(ctx, point=point):
                line = {
                    "point": point,
                    "attempt": ctx.attempt,
                    "lost": ctx.lost_workers,
                    "pid": os.getpid(),
                    "ctx": ctx.model_dump(mode="json"),
                }
                with log.open("a") as out:
                    out.write(json.dumps(line) + "\n")

            manager.register(point, record, priority=1)

    reached = _reach(step, marker, port)

    async def flaky_create(ctx):
        await reached("operation", hang=True)
        if ctx.attempt < 3:
            raise ConnectionError(f"service down (attempt {ctx.attempt})")

    async def in_failed(ctx):
        await reached("failed", hang=True)

    async def one_second(ctx):
        if ctx.result is not None and ctx.result.retry:
            decision = ctx.result.model_copy(update={"backoff_seconds": 1.0})
            return ctx.model_copy(update={"result": decision})
        return None

    async def in_retried(ctx):
        await reached("retried", hang=True)

    async def after_retried(ctx):
        await reached("backoff", hang=False)

    async def in_command(ctx):
        await reached("command", hang=True)

    manager.register("task.created.pre", flaky_create)
    manager.register("activity.failed.pre", in_failed)
    manager.register("activity.failed.post", one_second)
    manager.register("activity.retried.pre", in_retried)
    manager.register("activity.retried.post", after_retried)
    manager.register("command.invoked.in", in_command, priority=10)


def _reach(step: str, marker: Path, port: int):
    """``reached(name, hang=)``: the first time ``name`` is the step, tell the test, maybe hang."""

    async def reached(name: str, *, hang: bool) -> None:
        if name != step or marker.exists():
            return
        marker.write_text(name)
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(name.encode() + b"\n")
        await writer.drain()
        writer.close()
        if hang:
            await asyncio.sleep(3600)  # until the test SIGKILLs this worker

    return reached


def posted_plugin(manager: HookManager, settings: object) -> None:
    """Stops the worker right after ``channel.sent`` posted (step ``posted``), once."""
    reached = _reach(
        os.environ.get("HARNESS_TEST_HANG_AT", ""),
        Path(os.environ["HARNESS_TEST_MARKER"]),
        int(os.environ.get("HARNESS_TEST_SIGNAL_PORT", "0")),
    )

    async def after_post(ctx):
        await reached("posted", hang=True)

    manager.register("channel.sent.post", after_post)


def observed_plugin(manager: HookManager, settings: object) -> None:
    """``task.created`` fails its first attempt as a remote executor would, logging the key.

    What the observability test watches (issue 11): a transport error, a retry, log
    lines inside an operation, and a configured secret that must never be printed.
    """
    import logging

    from harness.hooks import HookTransportError

    log = logging.getLogger("tests.observed")
    secret = settings.openai_api_key.get_secret_value()  # type: ignore[attr-defined]

    async def flaky(ctx):
        log.info("task.created attempt %d sees %s", ctx.attempt, secret)
        if ctx.attempt == 1:
            raise HookTransportError(
                point="task.created.pre", endpoint="http://127.0.0.1:9/", cause="connection refused"
            )

    manager.register("task.created.pre", flaky)


def appended_plugin(manager: HookManager, settings: object) -> None:
    """Stops the worker right after a message was appended to a transcript (step
    ``appended``), once: its workflow task is not recorded yet."""
    reached = _reach(
        os.environ.get("HARNESS_TEST_HANG_AT", ""),
        Path(os.environ["HARNESS_TEST_MARKER"]),
        int(os.environ.get("HARNESS_TEST_SIGNAL_PORT", "0")),
    )

    async def after_append(ctx):
        if ctx.append:
            await reached("appended", hang=True)

    manager.register("persistence.write.post", after_append)
