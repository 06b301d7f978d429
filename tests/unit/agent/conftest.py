"""The agent loop in-process: a real HookManager with the built-in and agent bodies."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness.agent.loop import AgentLoop
from harness.agent.loop_steps import HelpAnswer
from harness.agent.operations import InProcess
from harness.agent.profiles import AgentProfile
from harness.agent.state import AgentState, LoopIdentity
from harness.bodies import BodyDeps, catalogue_of, register_defaults
from harness.channels import SlackChannel
from harness.domain import HelpRequest, Message, Participant, Role, TaskRef
from harness.hooks import OPERATIONS, HookManager, register_approvals
from harness.models import ModelRegistry
from harness.skills import SkillLoader
from harness.tools import ToolRegistry, builtin_tools

SKILLS = Path(__file__).parents[3] / "skills"
PARTICIPANTS = (
    Participant(user_id="U_OWNER", role=Role.OWNER),
    Participant(user_id="U_WATCHER", role=Role.WATCHER),
)


class FixedClock:
    def now(self) -> datetime:
        return datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)

    def monotonic(self) -> float:
        return 0.0


@dataclass
class ScriptedPeople:
    """Answers help requests from a script; records what was asked and refused."""

    answers: list[HelpAnswer] = field(default_factory=list)
    asked: list[HelpRequest] = field(default_factory=list)
    refusals: list[tuple[str, str]] = field(default_factory=list)
    accepted_by: list[str] = field(default_factory=list)
    steer: list[Message] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    async def wait(self, request: HelpRequest) -> HelpAnswer:
        self.asked.append(request)
        return self.answers.pop(0)

    async def refused(self, answer: HelpAnswer, reason: str) -> None:
        self.refusals.append((answer.decided_by, reason))

    async def accepted(self, decision) -> None:
        self.accepted_by.append(decision.decided_by)

    def steering(self) -> tuple[Message, ...]:
        taken, self.steer = tuple(self.steer), []
        return taken

    async def notify(self, text: str) -> None:
        self.notices.append(text)


@dataclass
class Trace:
    """A recorder on every point of the catalogue: ``(point, ctx)`` in the order they ran."""

    seen: list[tuple[str, object]] = field(default_factory=list)

    def operations(self) -> set[str]:
        return {point.rsplit(".", 1)[0] for point, _ in self.seen}

    def contexts(self, point: str) -> list:
        return [ctx for p, ctx in self.seen if p == point]


@pytest.fixture
def store(sqlite_store):
    return sqlite_store


@pytest.fixture
def tools(store) -> ToolRegistry:
    return ToolRegistry(builtin_tools(clock=FixedClock(), store=store))


def build_manager(
    models, tools, store, *, agents=None, keep_last=20, approvals=None
) -> HookManager:
    import random

    manager = HookManager()
    deps = BodyDeps(
        store=store,
        random=random.Random(1),
        models=models,
        tools=tools,
        skills=SkillLoader(SKILLS),
        channel=SlackChannel(http=NoHttp(), api_url="http://127.0.0.1:9/", token="unused"),
        agents=agents or {"reviewer": AgentProfile(instructions="Review.", tools=("echo",))},
        keep_last=keep_last,
    )
    register_defaults(manager, deps)
    catalogue = catalogue_of(tools)  # as the worker's build: the approval policy on tool.invoked
    register_approvals(manager, approvals, needs_approval=catalogue.approval, safe=catalogue.safe)
    return manager


class NoHttp:
    """The loop alone posts nothing: any HTTP call is a test bug."""

    async def post(self, url, **kwargs):
        raise AssertionError(f"unexpected HTTP post to {url}")

    async def aclose(self) -> None:
        return None


@pytest.fixture
def manager(tools, store) -> HookManager:
    return build_manager(ModelRegistry(), tools, store)


@pytest.fixture
def trace(manager) -> Trace:
    trace = Trace()
    for operation in OPERATIONS:
        for phase in ("pre", "in", "post"):
            point = f"{operation}.{phase}"

            async def record(ctx, point=point):
                trace.seen.append((point, ctx))

            manager.register(point, record, priority=1 if phase != "post" else 2000)
    return trace


@pytest.fixture
def people() -> ScriptedPeople:
    return ScriptedPeople()


def make_loop(manager, people, registry, **state) -> AgentLoop:
    state.setdefault("model", "offline")
    return AgentLoop(
        InProcess(manager),
        people,
        AgentState(catalogue=catalogue_of(registry), **state),
        LoopIdentity(
            task=TaskRef(task_id="T1", channel="C1", thread="171.1"),
            participants=PARTICIPANTS,
            correlation_id="corr-1",
        ),
    )
