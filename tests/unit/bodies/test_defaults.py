"""register_defaults: one default body per operation, in the module of its catalogue family."""

from __future__ import annotations

import random

import pytest

from harness.bodies import BodyDeps, register_defaults
from harness.channels import SlackChannel
from harness.channels.progress_reporter import PROGRESS_PRIORITY
from harness.hooks import BUILTIN_BODY_PRIORITY, POINTS, ROLE_GUARD_PRIORITY, HookManager
from harness.hooks.catalogue import OPERATIONS, entry_of
from harness.models import ModelRegistry
from harness.skills import SkillLoader
from harness.tools import ToolRegistry

ROWS = [entry_of(operation) for operation in OPERATIONS]
"""The built-in rows (what a plugin declares at run time is not among them)."""

SHOWN = {phase: [e.operation for e in ROWS if phase in e.progress] for phase in ("pre", "post")}
"""Where the progress reporter watches, from the rows (llm.invoked and tool.invoked at pre)."""


@pytest.fixture
def manager(tmp_path, sqlite_store):
    manager = HookManager()
    deps = BodyDeps(
        store=sqlite_store,
        random=random.Random(1),
        models=ModelRegistry(),
        tools=ToolRegistry([]),
        skills=SkillLoader(tmp_path),
        channel=SlackChannel(http=None, api_url="http://127.0.0.1:9/", token="unused"),  # type: ignore[arg-type]  # never posts
    )
    register_defaults(manager, deps)
    return manager


@pytest.mark.parametrize("entry", ROWS, ids=[e.operation for e in ROWS])
def test_each_operation_has_one_default_body_in_its_family_module(manager, entry):
    bodies = [
        r.name
        for r in manager.registrations(f"{entry.operation}.in")
        if r.priority == BUILTIN_BODY_PRIORITY
    ]
    if not entry.body:  # command.invoked: the commands plugin's bodies, not a default
        assert bodies == []
    else:
        [name] = bodies
        assert name.startswith(f"harness.bodies.{entry.family}.")


def test_the_defaults_beside_the_bodies_are_the_loop_defaults_the_guard_and_the_reporter(manager):
    regs = [r for point in POINTS for r in manager.registrations(point)]
    others = {(r.point, r.priority, r.name) for r in regs if r.priority != BUILTIN_BODY_PRIORITY}
    reporter = "harness.channels.progress_reporter.ProgressReporter"
    assert SHOWN["pre"] == ["llm.invoked", "tool.invoked"]
    assert others == {
        ("persistence.read.in", 900, "LoopDefaultsAnswer"),
        ("channel.received.pre", ROLE_GUARD_PRIORITY, "harness.channels.guard.ConversationGuard"),
        *((f"{op}.post", PROGRESS_PRIORITY, reporter) for op in SHOWN["post"]),
        *((f"{op}.pre", PROGRESS_PRIORITY, f"{reporter}.before") for op in SHOWN["pre"]),
    }


def test_progress_off_registers_no_reporter(tmp_path, sqlite_store):
    manager = HookManager()
    deps = BodyDeps(
        store=sqlite_store,
        random=random.Random(1),
        models=ModelRegistry(),
        tools=ToolRegistry([]),
        skills=SkillLoader(tmp_path),
        progress="off",
        channel=SlackChannel(http=None, api_url="http://127.0.0.1:9/", token="unused"),  # type: ignore[arg-type]  # never posts
    )
    register_defaults(manager, deps)
    names = {r.name for point in POINTS for r in manager.registrations(point)}
    assert not [n for n in names if "progress" in n]
