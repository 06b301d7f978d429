"""The loop watchdog names the hook executor and point that block the event loop (issue 26)."""

from __future__ import annotations

import asyncio
import logging
import re
import threading
import time

import pytest

from harness.hooks import HookAbort, HookContext, HookManager
from harness.hooks.contexts import HeartbeatTickContext, ShutdownContext
from harness.loop_watch import STUCK_FACTOR, LoopWatchdog

THREAD = "harness-loop-watch"


class Sleeper:
    """An ``async def`` executor that blocks the loop with ``time.sleep`` (the bug's shape)."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name = name
        self.seconds = seconds

    async def __call__(self, ctx: HookContext) -> None:
        time.sleep(self.seconds)  # blocks the loop: what the watchdog must see


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "harness.loop_watch" and r.levelno == logging.WARNING
    ]


def blocked_seconds(line: str) -> float:
    found = re.search(r"blocked(?: \(and still is\))? for at least (\d+\.\d) s", line)
    assert found is not None, line
    return float(found.group(1))


def no_watch_thread() -> bool:
    return not any(t.name == THREAD for t in threading.enumerate())


async def test_an_executor_blocking_the_loop_is_named_with_its_point_and_how_long(caplog):
    manager = HookManager()
    manager.register("shutdown.pre", Sleeper("slow-policy", 0.8))
    async with LoopWatchdog(warn_after=0.2):
        await manager.run("shutdown", ShutdownContext(reason="test"))
        await asyncio.sleep(0.2)  # the thread sees the loop answer and logs

    [line] = warnings(caplog)
    assert "by hook executor slow-policy at shutdown.pre" in line
    assert "tests.unit.test_loop_watch.__call__:" in line  # the line that blocks
    assert "asyncio.to_thread" in line
    assert 0.5 <= blocked_seconds(line) <= 1.5
    assert no_watch_thread()


async def test_the_innermost_operation_names_the_executor_inside_a_nested_run(caplog):
    manager = HookManager()

    async def outer(ctx: ShutdownContext) -> None:
        await manager.run("heartbeat.tick", HeartbeatTickContext(detail="inner"))

    outer.name = "outer-runner"  # type: ignore[attr-defined]
    manager.register("shutdown.pre", outer)
    manager.register("heartbeat.tick.pre", Sleeper("inner-blocker", 0.6))
    async with LoopWatchdog(warn_after=0.2):
        await manager.run("shutdown", ShutdownContext(reason="outer"))
        await asyncio.sleep(0.2)

    [line] = warnings(caplog)
    assert "by hook executor inner-blocker at heartbeat.tick.pre" in line


async def test_a_parallel_validator_is_named_not_its_group(caplog):
    manager = HookManager()

    async def passes(ctx: ShutdownContext) -> None:
        await asyncio.sleep(0)

    passes.name = "quick-validator"  # type: ignore[attr-defined]
    manager.register("shutdown.pre", passes, mode="validator", priority=1)
    manager.register("shutdown.pre", Sleeper("slow-validator", 0.6), mode="validator", priority=2)
    async with LoopWatchdog(warn_after=0.2):
        await manager.run("shutdown", ShutdownContext(reason="test"))
        await asyncio.sleep(0.2)

    [line] = warnings(caplog)
    assert "by hook executor slow-validator at shutdown.pre" in line


async def test_a_vetoing_executor_that_blocked_is_still_named(caplog):
    manager = HookManager()

    async def veto(ctx: ShutdownContext) -> None:
        time.sleep(0.6)
        raise HookAbort("no")

    veto.name = "slow-veto"  # type: ignore[attr-defined]
    manager.register("shutdown.pre", veto)
    async with LoopWatchdog(warn_after=0.2):
        with pytest.raises(HookAbort):
            await manager.run("shutdown", ShutdownContext(reason="test"))
        await asyncio.sleep(0.2)

    [line] = warnings(caplog)
    assert "by hook executor slow-veto at shutdown.pre" in line


async def test_a_block_outside_any_executor_names_the_code_line(caplog):
    async with LoopWatchdog(warn_after=0.2):
        time.sleep(0.6)
        await asyncio.sleep(0.2)

    [line] = warnings(caplog)
    assert "outside any hook executor, in tests.unit.test_loop_watch.test_a_block_outside" in line


async def test_a_loop_that_awaits_is_not_blocked(caplog):
    manager = HookManager()

    async def slow_but_polite(ctx: ShutdownContext) -> None:
        await asyncio.sleep(0.8)

    manager.register("shutdown.pre", slow_but_polite)
    async with LoopWatchdog(warn_after=0.2):
        await manager.run("shutdown", ShutdownContext(reason="test"))

    assert warnings(caplog) == []


async def test_a_loop_still_blocked_is_reported_while_it_hangs_then_once_free(caplog):
    warn_after = 0.05
    async with LoopWatchdog(warn_after=warn_after):
        time.sleep(STUCK_FACTOR * warn_after + 0.5)
        await asyncio.sleep(0.1)

    still, done = warnings(caplog)
    assert "has been blocked (and still is) for at least" in still
    assert blocked_seconds(still) >= STUCK_FACTOR * warn_after
    assert "was blocked for at least" in done
    assert blocked_seconds(done) >= blocked_seconds(still)


async def test_leaving_stops_the_thread_at_once_and_off_starts_none():
    watchdog = LoopWatchdog(warn_after=5.0)
    async with watchdog:
        assert not no_watch_thread()
        await asyncio.sleep(1.3)  # the thread waits on a probe (every 1.25 s) while we stop
        started = time.monotonic()
    assert time.monotonic() - started < 0.5  # the stop answers the probe: no 5 s wait
    assert no_watch_thread()
    watchdog.stop()  # again: nothing
    with pytest.raises(RuntimeError, match="starts once"):
        watchdog.start()

    async with LoopWatchdog(warn_after=0):
        assert no_watch_thread()


def test_a_negative_threshold_is_refused():
    with pytest.raises(ValueError, match="0 \\(off\\) or more"):
        LoopWatchdog(warn_after=-1)
