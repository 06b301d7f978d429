"""Contexts of model calls: assembling the prompt, calling the model, triage, parsing tool calls."""

from __future__ import annotations

from harness.domain import (
    DEFAULT_EFFORT,
    Effort,
    LlmResponse,
    Message,
    ToolCall,
    ToolSpec,
    Triage,
)
from harness.hooks.contexts.base import HookContext


class ContextCreatedContext(
    HookContext, operation="context.created", local=True, unechoed=("transcript",)
):
    """The prompt for the next model call is assembled; the body returns its messages."""

    transcript: tuple[Message, ...] = ()
    skills: tuple[str, ...] = ()
    agent: str = ""
    instructions: str = ""
    token_budget: int = 0
    result: tuple[Message, ...] | None = None


class LlmInvokedContext(
    HookContext,
    operation="llm.invoked",
    calls_model=True,
    progress=("pre", "post"),
    unechoed=("messages",),
):
    """One call to the main model."""

    model: str
    effort: Effort = DEFAULT_EFFORT
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    result: LlmResponse | None = None


class ToolCallsExtractedContext(HookContext, operation="tool_calls.extracted", local=True):
    """The tool calls are read out of a model response; the body returns the calls to run."""

    response: LlmResponse
    result: tuple[ToolCall, ...] | None = None


class SystemOneInvokedContext(
    HookContext,
    operation="system_one.invoked",
    calls_model=True,
    unechoed=("transcript",),
):
    """A fast, cheap model call that triages a request before the main model runs."""

    model: str
    request: str
    transcript: tuple[Message, ...] = ()
    result: Triage | None = None
