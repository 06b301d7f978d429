"""What the agent loop remembers between operations: the task's transcript and settings.

Plain serialisable data (pydantic), so the workflow can keep it in its state and carry
it across continue-as-new; nothing here does I/O. The loop driver that changes it is
:mod:`harness.agent.loop`.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, Field

from harness.domain import (
    DEFAULT_APPROVALS,
    DEFAULT_EFFORT,
    ApprovalDefault,
    BudgetUsage,
    Effort,
    Frozen,
    Message,
    ModelPrice,
    Participant,
    Skill,
    TaskRef,
    ToolSpec,
)

ASK_HUMAN: Final = "ask_human"
"""The tool through which a model asks the task's people a question (``help.requested``)."""

ASK_HUMAN_SPEC: Final = ToolSpec(
    name=ASK_HUMAN,
    description="Ask the people in this task's thread a question and wait for their answer.",
    parameters={
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["question"],
    },
)


class ToolCatalogue(Frozen):
    """The tools a worker offers, as the loop needs them: specs, approval needs, read-only ones.

    ``approval`` and ``safe`` are the tools' own word (``requires_approval``, ``safe``);
    the approval policy in the worker decides each call from them and the hooks file.
    """

    specs: tuple[ToolSpec, ...] = ()
    approval: tuple[str, ...] = ()
    safe: tuple[str, ...] = ()


class LoopIdentity(Frozen):
    """What every context the loop builds carries (DESIGN.md, "Semantics")."""

    task: TaskRef
    participants: tuple[Participant, ...] = ()
    correlation_id: str = ""


class AgentState(BaseModel):
    """The mutable state of one task's agent loop.

    ``sequence`` numbers the operations the loop ran; it makes idempotency keys and
    help request ids deterministic (the workflow replays the same numbers).
    ``tools`` names the catalogue's tools offered by default (``None``: all of them);
    loaded skills add theirs.
    """

    transcript: list[Message] = Field(default_factory=list)
    skills: list[Skill] = Field(default_factory=list)
    model: str = ""
    effort: Effort = DEFAULT_EFFORT
    system_one_model: str = ""
    agent: str = ""
    instructions: str = ""
    catalogue: ToolCatalogue = ToolCatalogue()
    tools: list[str] | None = None
    can_ask: bool = True
    token_budget: int = 8000
    max_turns: int = 8
    sequence: int = 0
    budget: BudgetUsage = BudgetUsage()
    """The task's limits and what it used (:mod:`harness.agent.budget`; ``/task budget``)."""
    budget_told: list[str] = Field(default_factory=list)
    """The limits the thread was told are 80 % used (``tokens:10000``), so each is told once."""
    budget_set: bool = False
    """The limits were taken from the worker's defaults once; ``/task budget`` changes them."""
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    """USD per million tokens by model name, for the cost (``HARNESS_MODEL_PRICES``)."""
    approvals: ApprovalDefault | None = None
    """The task's approval default (``/task approvals``); ``None``: the worker's, below."""
    default_approvals: ApprovalDefault = DEFAULT_APPROVALS
    """The worker's approval default (the hooks file's ``[approvals] default``)."""
    approved_tools: list[str] = Field(default_factory=list)
    """Tools a decider approved for the rest of the task ("don't ask again"), never asked again."""
    requested_by: str = ""
    """Whose message started the turn running now (approval rules by role read it)."""
    ask_first: bool = False
    """A run started before approvals by policy (issue 14): a tool needing approval is asked
    about before ``tool.invoked``, as that run's history has it. The workflow sets it."""

    def offered_tools(self) -> tuple[ToolSpec, ...]:
        """The specs offered to the model now: default tools, skills' tools, ``ask_human``.

        Tools the approval policy would always ask about are not offered when nobody
        can be asked (a named agent's own loop), rather than offered and then always
        refused: those needing approval, and under ``strict`` every tool not safe.
        """
        wanted = set(self.tools) if self.tools is not None else None
        for skill in self.skills:
            if wanted is not None:
                wanted.update(skill.tools)
        specs = [
            spec
            for spec in self.catalogue.specs
            if (wanted is None or spec.name in wanted)
            and (self.can_ask or not self.always_asked(spec.name))
        ]
        if self.can_ask:
            specs.append(ASK_HUMAN_SPEC)
        return tuple(specs)

    def always_asked(self, tool: str) -> bool:
        """Whether the default policy asks a person before every call of ``tool`` here.

        Rules of the hooks file may say otherwise; this is the tool's and the task's word.
        """
        catalogue, default = self.catalogue, self.approvals or self.default_approvals
        if tool in catalogue.safe or tool in self.approved_tools or default == "off":
            return False
        return default == "strict" or tool in catalogue.approval


LOOP_DEFAULTS_KEY: Final = "worker/loop-defaults"
"""The key a worker answers ``persistence.read`` of with its :class:`LoopDefaults`."""


class LoopDefaults(Frozen):
    """What a task's loop takes from the worker's configuration, not from the task.

    Workflow code cannot read settings or list tools, so the task reads these once
    per run through ``persistence.read`` (a hooked operation like any other) and
    keeps them in its :class:`AgentState`.
    """

    catalogue: ToolCatalogue = ToolCatalogue()
    system_one_model: str = ""
    token_budget: int = 8000
    max_turns: int = 8
    history_event_limit: int = 10_000
    history_bytes_limit: int = 4_000_000
    history_update_limit: int = 1_000
    subtask_wait_seconds: float = 600.0
    budget: BudgetUsage = BudgetUsage()
    """The limits a new task starts with (``HARNESS_BUDGET_*``); nothing used."""
    model_prices: dict[str, ModelPrice] = Field(default_factory=dict)
    progress: bool = True
    """Whether each turn posts a progress message (``HARNESS_PROGRESS`` is not ``off``)."""
    approvals: ApprovalDefault = DEFAULT_APPROVALS
    """The hooks file's ``[approvals] default``: what a task that has not chosen follows."""

    def apply(self, state: AgentState) -> None:
        """Copy the defaults into ``state`` (the task's own model and effort are kept).

        The budget's limits are taken once, at the task's first run: after that they are
        the task's (``/task budget``), and a later run (continue-as-new) keeps them.
        """
        state.catalogue = self.catalogue
        state.system_one_model = self.system_one_model
        state.token_budget = self.token_budget
        state.max_turns = self.max_turns
        state.default_approvals = self.approvals
        state.prices = dict(self.model_prices)
        if not state.budget_set:
            limits = self.budget
            state.budget = state.budget.model_copy(
                update={
                    "token_limit": limits.token_limit,
                    "tool_call_limit": limits.tool_call_limit,
                    "cost_limit": limits.cost_limit,
                }
            )
            state.budget_set = True
