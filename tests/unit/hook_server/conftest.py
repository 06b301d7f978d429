"""Fixtures for the hook-server side's tests: a context as a remote executor receives it."""

from __future__ import annotations

import pytest

from harness.domain import TaskRef, ToolCall
from harness.hooks.contexts import ToolInvokedContext


@pytest.fixture
def tool_ctx() -> ToolInvokedContext:
    return ToolInvokedContext(
        task=TaskRef(task_id="T1", team="TEAM", channel="C1", thread="171.1"),
        correlation_id="corr-1",
        idempotency_key="T1:op-1",
        call=ToolCall(id="call-1", name="search", arguments={"q": "weather in Paris"}),
    )
