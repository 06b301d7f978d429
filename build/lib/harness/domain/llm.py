"""What a model answers, as values: its response, the tokens it used, the fast model's triage.

Plain frozen values; the model providers are :mod:`harness.models`, the hook contexts
of model calls :mod:`harness.hooks.contexts.llm`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.domain.frozen import EMPTY, Frozen, FrozenJson
from harness.domain.tools import ToolCall


class Usage(Frozen):
    """Tokens a model call consumed."""

    input_tokens: int = 0
    output_tokens: int = 0


class ModelPrice(Frozen):
    """What a model costs, in USD per million tokens (``HARNESS_MODEL_PRICES``), for budgets."""

    input: float = Field(default=0.0, ge=0)
    output: float = Field(default=0.0, ge=0)


class LlmResponse(Frozen):
    """What a model answered, before tool calls are extracted from it."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    stop_reason: str = ""
    usage: Usage = Usage()
    raw: FrozenJson = EMPTY


class Triage(Frozen):
    """The fast model's verdict on a request, and the tokens it took (for the task's budget)."""

    decision: Literal["answer", "plan", "ask"]
    answer: str = ""
    question: str = ""
    usage: Usage = Usage()
