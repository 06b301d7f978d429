"""The harness's domain: plain frozen values (tasks, messages, plans, help, commands, ...).

These are what the hook contexts carry, not hook things themselves: no operation, no
phase, no executor. One module per family; every name is importable from here, which is
where the rest of the repository imports them from. This package imports nothing else of
harness (pydantic and the standard library only; an import-linter contract holds it), so
every layer can use it. The ``<Op>Context`` classes live in :mod:`harness.hooks.contexts`.
"""

from __future__ import annotations

from harness.domain.artefacts import Artefact
from harness.domain.commands import CommandResult
from harness.domain.effects import (
    EFFECTS,
    CancelTask,
    CommandEffect,
    Effect,
    FinishTask,
    GrantableRole,
    GrantRole,
    LoadSkill,
    SetApprovals,
    SetBudget,
    SetEffort,
    SetMidTurn,
    SetModel,
    SpawnSubtask,
    StopTurn,
    UnloadSkill,
)
from harness.domain.frozen import EMPTY, Frozen, FrozenDict, FrozenJson, FrozenStrMap, freeze
from harness.domain.help import HelpDecision, HelpRequest
from harness.domain.llm import LlmResponse, ModelPrice, Triage, Usage
from harness.domain.messages import ChannelMessage, Message
from harness.domain.plans import AgentOutput, Plan, PlanStep, StepOutcome, SubtaskSpec
from harness.domain.progress import (
    APPROVAL_DEFAULTS,
    BUDGET_LIMITS,
    DEFAULT_APPROVALS,
    DEFAULT_MID_TURN,
    MID_TURN_MODES,
    PROGRESS_ENTITY,
    ApprovalDefault,
    BudgetLimit,
    BudgetUsage,
    MidTurn,
    PendingQuestion,
    StepProgress,
    StepState,
    TurnProgress,
    TurnState,
    duration,
)
from harness.domain.retries import RetryDecision, RetryDefaults
from harness.domain.skills import Skill
from harness.domain.task import (
    DEFAULT_EFFORT,
    EFFORTS,
    FINAL_STATUSES,
    Effort,
    Participant,
    RequestRoute,
    Role,
    SubtaskSummary,
    TaskRef,
    TaskSnapshot,
    TaskSpec,
    TaskStatus,
)
from harness.domain.tools import ToolCall, ToolResult, ToolSpec

__all__ = [
    "APPROVAL_DEFAULTS",
    "BUDGET_LIMITS",
    "DEFAULT_APPROVALS",
    "DEFAULT_EFFORT",
    "DEFAULT_MID_TURN",
    "EFFECTS",
    "EFFORTS",
    "EMPTY",
    "FINAL_STATUSES",
    "MID_TURN_MODES",
    "PROGRESS_ENTITY",
    "AgentOutput",
    "ApprovalDefault",
    "Artefact",
    "BudgetLimit",
    "BudgetUsage",
    "CancelTask",
    "ChannelMessage",
    "CommandEffect",
    "CommandResult",
    "Effect",
    "Effort",
    "FinishTask",
    "Frozen",
    "FrozenDict",
    "FrozenJson",
    "FrozenStrMap",
    "GrantRole",
    "GrantableRole",
    "HelpDecision",
    "HelpRequest",
    "LlmResponse",
    "LoadSkill",
    "Message",
    "MidTurn",
    "ModelPrice",
    "Participant",
    "PendingQuestion",
    "Plan",
    "PlanStep",
    "RequestRoute",
    "RetryDecision",
    "RetryDefaults",
    "Role",
    "SetApprovals",
    "SetBudget",
    "SetEffort",
    "SetMidTurn",
    "SetModel",
    "Skill",
    "SpawnSubtask",
    "StepOutcome",
    "StepProgress",
    "StepState",
    "StopTurn",
    "SubtaskSpec",
    "SubtaskSummary",
    "TaskRef",
    "TaskSnapshot",
    "TaskSpec",
    "TaskStatus",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Triage",
    "TurnProgress",
    "TurnState",
    "UnloadSkill",
    "Usage",
    "duration",
    "freeze",
]
