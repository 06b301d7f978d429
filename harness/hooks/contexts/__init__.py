"""Typed contexts, one per operation, each declaring its catalogue row as it is defined.

Every module of this package is imported here (those re-exported below first, then any
other found on disk, by file name: a new family needs no import list), and then the
built-in catalogue is sealed (:func:`harness.hooks.catalogue.seal`): ``OPERATIONS`` is the
rows in that load order, each module's classes in definition order. :func:`context_type`
and ``CONTEXT_TYPES`` are :mod:`.base`'s, re-exported; so are the original 30 classes, by
name, for hook code. A context added since is imported from its family's module
(``harness.hooks.contexts.<family>``).

The value types the contexts carry (``TaskRef``, ``TaskSnapshot``, ``ToolCall``, ...) are
defined once, in :mod:`harness.domain`; they are re-exported here (one definition, two
names) so that hook code written against ``harness.hooks.contexts`` keeps working. Code in
this repository imports them from :mod:`harness.domain`.
"""

from __future__ import annotations

import importlib
import pkgutil

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
from harness.hooks.catalogue import seal
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

# Each class recorded its row on definition; once every family module is loaded, the
# built-in catalogue is complete, and OPERATIONS, POINTS and ACTIVITIES are fixed.
for _family in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_family.name}")
seal()


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
