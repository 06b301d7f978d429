"""Typed contexts, one per operation, and :func:`context_type` built from the catalogue.

The value types the contexts carry (``TaskRef``, ``TaskSnapshot``, ``ToolCall``, ...) are
defined once, in :mod:`harness.domain`; they are re-exported here (one definition, two
names) so that hook code written against ``harness.hooks.contexts`` keeps working. Code in
this repository imports them from :mod:`harness.domain`.
"""

from __future__ import annotations

from typing import Final

from harness.domain import (
    AgentOutput,
    Artefact,
    ChannelMessage,
    CommandEffect,
    CommandResult,
    Effort,
    Frozen,
    HelpDecision,
    HelpRequest,
    LlmResponse,
    Message,
    Participant,
    Plan,
    PlanStep,
    RequestRoute,
    RetryDecision,
    Role,
    Skill,
    StepOutcome,
    SubtaskSpec,
    SubtaskSummary,
    TaskRef,
    TaskSnapshot,
    TaskSpec,
    TaskStatus,
    ToolCall,
    ToolResult,
    ToolSpec,
    Triage,
    Usage,
)
from harness.hooks.catalogue import OPERATIONS, check_operation
from harness.hooks.contexts.activity import (
    ActivityFailedContext,
    ActivityRetriedContext,
    HeartbeatTickContext,
    ShutdownContext,
)
from harness.hooks.contexts.base import HookContext
from harness.hooks.contexts.channel import ChannelReceivedContext, ChannelSentContext
from harness.hooks.contexts.command import CommandInvokedContext
from harness.hooks.contexts.compaction import (
    CompactionKeepContext,
    CompactionSummariseContext,
    CompactionTriggerContext,
)
from harness.hooks.contexts.help import HelpDecidedContext, HelpRequestedContext
from harness.hooks.contexts.llm import (
    ContextCreatedContext,
    LlmInvokedContext,
    SystemOneInvokedContext,
    ToolCallsExtractedContext,
)
from harness.hooks.contexts.persistence import PersistenceReadContext, PersistenceWriteContext
from harness.hooks.contexts.plan import (
    AgentInvokedContext,
    PlanCreatedContext,
    StepFinishedContext,
    StepStartedContext,
    SubtaskSpawnedContext,
)
from harness.hooks.contexts.skill import SkillLoadedContext, SkillUnloadedContext
from harness.hooks.contexts.task import (
    RequestReceivedContext,
    TaskCompleteContext,
    TaskCreatedContext,
    TaskStateChangedContext,
)
from harness.hooks.contexts.tool import ToolInvokedContext

_CONTEXT_CLASSES: Final[tuple[type[HookContext], ...]] = (
    RequestReceivedContext,
    TaskCreatedContext,
    TaskStateChangedContext,
    TaskCompleteContext,
    ContextCreatedContext,
    LlmInvokedContext,
    ToolCallsExtractedContext,
    ToolInvokedContext,
    SystemOneInvokedContext,
    PlanCreatedContext,
    StepStartedContext,
    StepFinishedContext,
    SubtaskSpawnedContext,
    HelpRequestedContext,
    HelpDecidedContext,
    ChannelSentContext,
    ChannelReceivedContext,
    CompactionTriggerContext,
    CompactionKeepContext,
    CompactionSummariseContext,
    PersistenceReadContext,
    PersistenceWriteContext,
    ActivityFailedContext,
    ActivityRetriedContext,
    HeartbeatTickContext,
    ShutdownContext,
    SkillLoadedContext,
    SkillUnloadedContext,
    AgentInvokedContext,
    CommandInvokedContext,
)

CONTEXT_TYPES: Final[dict[str, type[HookContext]]] = {
    cls.operation: cls for cls in _CONTEXT_CLASSES
}
if tuple(CONTEXT_TYPES) != OPERATIONS:  # pragma: no cover - a wiring mistake, caught at import
    raise RuntimeError("context classes do not match the catalogue's operations, in order")


def context_type(name: str) -> type[HookContext]:
    """The context class of an operation, or of a point (``'tool.invoked.pre'``).

    Raises:
        UnknownHookPointError: the name is neither an operation nor a point.
    """
    cls = CONTEXT_TYPES.get(name)
    if cls is not None:
        return cls
    operation, dot, phase = name.rpartition(".")
    if dot and phase in ("pre", "in", "post") and operation in CONTEXT_TYPES:
        return CONTEXT_TYPES[operation]
    return CONTEXT_TYPES[check_operation(name)]


__all__ = [
    "CONTEXT_TYPES",
    "ActivityFailedContext",
    "ActivityRetriedContext",
    "AgentInvokedContext",
    "AgentOutput",
    "Artefact",
    "ChannelMessage",
    "ChannelReceivedContext",
    "ChannelSentContext",
    "CommandEffect",
    "CommandInvokedContext",
    "CommandResult",
    "CompactionKeepContext",
    "CompactionSummariseContext",
    "CompactionTriggerContext",
    "ContextCreatedContext",
    "Effort",
    "Frozen",
    "HeartbeatTickContext",
    "HelpDecidedContext",
    "HelpDecision",
    "HelpRequest",
    "HelpRequestedContext",
    "HookContext",
    "LlmInvokedContext",
    "LlmResponse",
    "Message",
    "Participant",
    "PersistenceReadContext",
    "PersistenceWriteContext",
    "Plan",
    "PlanCreatedContext",
    "PlanStep",
    "RequestReceivedContext",
    "RequestRoute",
    "RetryDecision",
    "Role",
    "ShutdownContext",
    "Skill",
    "SkillLoadedContext",
    "SkillUnloadedContext",
    "StepFinishedContext",
    "StepOutcome",
    "StepStartedContext",
    "SubtaskSpawnedContext",
    "SubtaskSpec",
    "SubtaskSummary",
    "SystemOneInvokedContext",
    "TaskCompleteContext",
    "TaskCreatedContext",
    "TaskRef",
    "TaskSnapshot",
    "TaskSpec",
    "TaskStateChangedContext",
    "TaskStatus",
    "ToolCall",
    "ToolCallsExtractedContext",
    "ToolInvokedContext",
    "ToolResult",
    "ToolSpec",
    "Triage",
    "Usage",
]
