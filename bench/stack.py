"""What the end-to-end benches share: the real stack in processes, and the Temporal floor.

:func:`stack` is the testing kit's stack (:mod:`bot.testing.stack`: a tuned Temporal dev
server, ``python -m harness.worker`` and ``python -m bot`` in local mode, each in its own
process on 127.0.0.1, waited for until each serves, stopped afterwards), signed with the
bench's secret. :class:`FloorWorkflow` is the least a Temporal-backed message can cost
(one update that runs one activity), measured in the same run as ours so the figures are
ratios, not absolute times on a noisy machine.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import timedelta
from pathlib import Path

from temporalio import activity, workflow

from bot.testing.stack import (
    Stack,
    free_port,
    running_stack,
    wait_port,
)

SECRET = "bench-signing-secret"
__all__ = [
    "SECRET",
    "FloorWorkflow",
    "Stack",
    "echo",
    "free_port",
    "stack",
    "stats",
    "wait_port",
]


def stats(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 2),
        "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000, 2),
    }


def stack(
    queue: str,
    extra_env: Mapping[str, str] | None = None,
    *,
    extra: Sequence[tuple[Sequence[str], int]] = (),
    hooks_config: Path | None = None,
) -> AbstractContextManager[Stack]:
    """The kit's stack on task queue ``queue`` (the worker reading ``hooks_config``); then
    each ``extra`` ``(command, port)``, waited for until it listens on its port."""
    return running_stack(
        task_queue=queue,
        env=extra_env,
        signing_secret=SECRET,
        extra=extra,
        hooks_config=hooks_config,
    )


@activity.defn(name="bench-echo")
async def echo(value: str) -> str:
    return value


@workflow.defn(name="bench-floor")
class FloorWorkflow:
    """One update that runs one activity: the least a Temporal-backed command can cost."""

    def __init__(self) -> None:
        self.done = False

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self.done)

    @workflow.update
    async def touch(self, value: str) -> str:
        return await workflow.execute_activity(
            echo, value, start_to_close_timeout=timedelta(seconds=10)
        )

    @workflow.signal
    def stop(self) -> None:
        self.done = True
