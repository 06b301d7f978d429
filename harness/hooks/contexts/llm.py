"""Contexts of model calls: assembling the prompt, calling the model, triage, parsing tool calls."""

from __future__ import annotations

from typing import ClassVar, Literal

from harness.hooks.contexts.base import EMPTY, Frozen, FrozenJson, HookContext
from harness.hooks.contexts.task import Effort


class ToolCall(Frozen):
    """One call the model asked for."""

    id: str
    name: str
    arguments: FrozenJson = EMPTY


class Message(Frozen):
    """One chat message in provider-neutral form."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    name: str = ""
    tool_call_id: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


class ToolSpec(Frozen):
    """A tool offered to the model: name, description, JSON schema of its arguments."""

    name: str
    description: str = ""
    parameters: FrozenJson = EMPTY


class Usage(Frozen):
    """Tokens a model call consumed."""

    input_tokens: int = 0
    output_tokens: int = 0


class LlmResponse(Frozen):
    """What a model answered, before tool calls are extracted from it."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = ""
    usage: Usage = Usage()
    raw: FrozenJson = EMPTY


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
    effort: Effort = "medium"
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    result: LlmResponse | None = None


class ToolCallsExtractedContext(HookContext):
    """The tool calls are read out of a model response; the body returns the calls to run."""

    operation: ClassVar[str] = "tool_calls.extracted"
    response: LlmResponse
    result: tuple[ToolCall, ...] | None = None


class Triage(Frozen):
    """The fast model's verdict on a request."""

    decision: Literal["answer", "plan", "ask"]
    answer: str = ""
    question: str = ""


class SystemOneInvokedContext(HookContext):
    """A fast, cheap model call that triages a request before the main model runs."""

    operation: ClassVar[str] = "system_one.invoked"
    model: str
    request: str
    transcript: tuple[Message, ...] = ()
    result: Triage | None = None
