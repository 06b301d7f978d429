"""Fixtures for hook-core tests: a fresh manager and a recorder of what executors saw."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from harness.domain import TaskRef, ToolCall
from harness.hooks import HookManager
from harness.hooks.contexts import HookContext, ToolInvokedContext


@dataclass
class Recorder:
    """Builds executors that append ``(label, ctx)`` and optionally replace the context."""

    trace: list[tuple[str, HookContext]] = field(default_factory=list)

    def executor(
        self, label: str, replace: Callable[[HookContext], HookContext | None] | None = None
    ):
        async def run(ctx: HookContext) -> HookContext | None:
            self.trace.append((label, ctx))
            return replace(ctx) if replace else None

        run.__qualname__ = label
        return run

    def pop_trace(self) -> list[str]:
        labels = [label for label, _ in self.trace]
        self.trace.clear()
        return labels


@pytest.fixture
def manager() -> HookManager:
    return HookManager()


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def tool_ctx() -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1", team="TEAM", channel="C1", thread="171.1"),
        correlation_id="corr-1",
        idempotency_key="T1:op-1",
        call=ToolCall(id="call-1", name="search", arguments={"q": "weather in Paris"}),
    )
