"""Fixtures for command tests: a real HookManager with the commands plugin, and contexts."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from commands import register_all
from harness.domain import Participant, Role, SubtaskSummary, TaskRef, TaskSnapshot, TaskStatus
from harness.hooks import HookManager
from harness.hooks.contexts import CommandInvokedContext

MODELS = ("gpt-x", "claude-y", "offline")
PEOPLE = (
    Participant(user_id="UOWNER", role=Role.OWNER),
    Participant(user_id="UCOLLAB", role=Role.COLLABORATOR),
    Participant(user_id="UWATCH", role=Role.WATCHER),
)
REF = TaskRef(task_id="slack-T1-C1", team="T1", channel="C1")
SNAPSHOT = TaskSnapshot(
    ref=REF,
    title="fix the flaky test",
    status=TaskStatus.RUNNING,
    model="offline",
    effort="medium",
    participants=PEOPLE,
    subtasks=(SubtaskSummary(task_id="slack-T1-C1/sub-1", title="read logs", status="running"),),
)

MakeCtx = Callable[..., CommandInvokedContext]


def make_ctx(command: str, args: str = "", sender: str = "UOWNER", **kw) -> CommandInvokedContext:
    role = next((p.role for p in PEOPLE if p.user_id == sender), Role.NONE)
    fields = {
        "task": REF,
        "participants": PEOPLE,
        "correlation_id": f"corr-{command}-{sender}",
        "idempotency_key": f"idem-{command}-{sender}",
        "command": command,
        "args": args,
        "sender": sender,
        "role": role,
        "snapshot": SNAPSHOT,
    }
    fields.update(kw)
    return CommandInvokedContext(**fields)


@pytest.fixture
def manager() -> HookManager:
    manager = HookManager()
    register_all(manager, models=MODELS)
    return manager


@pytest.fixture
def ctx() -> MakeCtx:
    return make_ctx
