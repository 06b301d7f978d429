"""The activities of the agent loop and the channel: one per operation, each hook-wrapped.

Like :mod:`harness.temporal.activities`, each method only returns its input: the
operation's body is its ``in`` chain (the defaults come from
:mod:`harness.agent.plugin` and :mod:`harness.channels`). One activity per operation,
rather than one taking a union of contexts, so history, metrics and timeouts name the
operation, and each payload is validated as exactly its own context type.
"""

from __future__ import annotations

from temporalio import activity

from harness.hooks.contexts import (
    AgentInvokedContext,
    ChannelReceivedContext,
    ChannelSentContext,
    CompactionKeepContext,
    CompactionSummariseContext,
    CompactionTriggerContext,
    ContextCreatedContext,
    HelpDecidedContext,
    HelpRequestedContext,
    LlmInvokedContext,
    PlanCreatedContext,
    SkillLoadedContext,
    SkillUnloadedContext,
    StepFinishedContext,
    StepStartedContext,
    SystemOneInvokedContext,
    ToolCallsExtractedContext,
    ToolInvokedContext,
)
from harness.temporal import LOOP_ACTIVITIES
from harness.temporal.wrapper import ActivityHost, hooked


class LoopActivities(ActivityHost):
    """The loop's activities; :class:`~harness.temporal.activities.HarnessActivities` adds them."""

    @activity.defn(name=LOOP_ACTIVITIES["channel.received"])
    @hooked("channel.received")
    async def channel_received(self, ctx: ChannelReceivedContext) -> ChannelReceivedContext:
        """A message from the thread; returns it normalised for the task."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["channel.sent"])
    @hooked("channel.sent")
    async def channel_sent(self, ctx: ChannelSentContext) -> ChannelSentContext:
        """The task posts to its thread; returns the message as posted."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["context.created"])
    @hooked("context.created")
    async def context_created(self, ctx: ContextCreatedContext) -> ContextCreatedContext:
        """Assembles the prompt of the next model call."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["llm.invoked"])
    @hooked("llm.invoked")
    async def llm_invoked(self, ctx: LlmInvokedContext) -> LlmInvokedContext:
        """Calls the task's model."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["tool_calls.extracted"])
    @hooked("tool_calls.extracted")
    async def tool_calls_extracted(
        self, ctx: ToolCallsExtractedContext
    ) -> ToolCallsExtractedContext:
        """Parses the tool calls of a model answer."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["tool.invoked"])
    @hooked("tool.invoked")
    async def tool_invoked(self, ctx: ToolInvokedContext) -> ToolInvokedContext:
        """Runs one tool call."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["system_one.invoked"])
    @hooked("system_one.invoked")
    async def system_one_invoked(self, ctx: SystemOneInvokedContext) -> SystemOneInvokedContext:
        """Triages a request with the fast model."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["plan.created"])
    @hooked("plan.created")
    async def plan_created(self, ctx: PlanCreatedContext) -> PlanCreatedContext:
        """Writes a plan of steps."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["step.started"])
    @hooked("step.started")
    async def step_started(self, ctx: StepStartedContext) -> StepStartedContext:
        """A plan step starts; returns the step to run."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["step.finished"])
    @hooked("step.finished")
    async def step_finished(self, ctx: StepFinishedContext) -> StepFinishedContext:
        """A plan step ended; returns its outcome."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["help.requested"])
    @hooked("help.requested")
    async def help_requested(self, ctx: HelpRequestedContext) -> HelpRequestedContext:
        """Completes a help request as it will be posted."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["help.decided"])
    @hooked("help.decided")
    async def help_decided(self, ctx: HelpDecidedContext) -> HelpDecidedContext:
        """Judges an answer to a help request."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["compaction.trigger"])
    @hooked("compaction.trigger")
    async def compaction_trigger(self, ctx: CompactionTriggerContext) -> CompactionTriggerContext:
        """Decides whether to compact the transcript."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["compaction.keep"])
    @hooked("compaction.keep")
    async def compaction_keep(self, ctx: CompactionKeepContext) -> CompactionKeepContext:
        """Chooses the messages kept verbatim."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["compaction.summarise"])
    @hooked("compaction.summarise")
    async def compaction_summarise(
        self, ctx: CompactionSummariseContext
    ) -> CompactionSummariseContext:
        """Summarises the messages dropped."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["skill.loaded"])
    @hooked("skill.loaded")
    async def skill_loaded(self, ctx: SkillLoadedContext) -> SkillLoadedContext:
        """Reads a skill for the task."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["skill.unloaded"])
    @hooked("skill.unloaded")
    async def skill_unloaded(self, ctx: SkillUnloadedContext) -> SkillUnloadedContext:
        """Releases a skill."""
        return ctx

    @activity.defn(name=LOOP_ACTIVITIES["agent.invoked"])
    @hooked("agent.invoked")
    async def agent_invoked(self, ctx: AgentInvokedContext) -> AgentInvokedContext:
        """Runs a named agent's own loop."""
        return ctx
