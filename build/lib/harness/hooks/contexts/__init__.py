"""Typed contexts, one per operation, each registered (in :mod:`.base`) as it is defined.

:func:`context_type` and ``CONTEXT_TYPES`` are :mod:`.base`'s, re-exported.

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
from harness.hooks.catalogue import OPERATIONS
from harness.hooks.contexts.activity import (
    ActivityFailedContext,
    ActivityRetriedContext,
    HeartbeatTickContext,
    ShutdownContext,
)
from harness.hooks.contexts.base import CONTEXT_TYPES, HookContext, context_type
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

# Each class above registered itself on definition; a catalogue row without one is a
# wiring mistake, caught at import.
_MISSING: Final = [op for op in OPERATIONS if op not in CONTEXT_TYPES]
if _MISSING:  # pragma: no cover
    raise RuntimeError(f"catalogue operations without a context class: {', '.join(_MISSING)}")


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
    "context_type",
]
