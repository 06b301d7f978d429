"""Contexts of model calls: assembling the prompt, calling the model, triage, parsing tool calls."""

from __future__ import annotations

from typing import ClassVar

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


class ContextCreatedContext(HookContext):
    """The prompt for the next model call is assembled; the body returns its messages."""

    operation: ClassVar[str] = "context.created"
    transcript: tuple[Message, ...] = ()
    skills: tuple[str, ...] = ()
    agent: str = ""
    instructions: str = ""
    token_budget: int = 0
    result: tuple[Message, ...] | None = None


class LlmInvokedContext(HookContext):
    """One call to the main model."""

    operation: ClassVar[str] = "llm.invoked"
    model: str
    effort: Effort = DEFAULT_EFFORT
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    result: LlmResponse | None = None


class ToolCallsExtractedContext(HookContext):
    """The tool calls are read out of a model response; the body returns the calls to run."""

    operation: ClassVar[str] = "tool_calls.extracted"
    response: LlmResponse
    result: tuple[ToolCall, ...] | None = None


class SystemOneInvokedContext(HookContext):
    """A fast, cheap model call that triages a request before the main model runs."""

    operation: ClassVar[str] = "system_one.invoked"
    model: str
    request: str
    transcript: tuple[Message, ...] = ()
    result: Triage | None = None
