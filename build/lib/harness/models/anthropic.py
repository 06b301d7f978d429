"""The Anthropic Messages API provider.

Translates a :class:`~harness.models.base.ModelRequest` to ``POST {base_url}/v1/messages``:
system messages become the top-level ``system`` prompt, tool calls and results become
``tool_use``/``tool_result`` blocks (consecutive same-role messages merged, as the API
requires alternating turns), and ``/effort`` becomes an extended-thinking budget.
Thinking blocks are not kept in the transcript, so thinking is only enabled on calls
that do not continue a tool-use turn (the API requires a continued turn to replay
its thinking blocks; a call without thinking needs none).
"""

from __future__ import annotations

from typing import Any, Final, Literal, final

from harness.domain import Effort, LlmResponse, Message, ToolCall, ToolSpec, Usage
from harness.models.base import ModelRequest
from harness.models.transport import malformed, post_json
from harness.providers import HttpClient

DEFAULT_BASE_URL: Final = "https://api.anthropic.com"
API_VERSION: Final = "2023-06-01"
THINKING_BUDGETS: Final[dict[Effort, int]] = {"low": 0, "medium": 2048, "high": 8192}
"""Thinking tokens per ``/effort``; ``low`` turns thinking off (the API's minimum is 1024)."""

EffortMode = Literal["thinking", "none"]


@final
class AnthropicProvider:
    """Messages API over the harness's HTTP client.

    Args:
        http: the worker's HTTP provider.
        api_key: sent as ``x-api-key``.
        base_url: scheme and host (the path ``/v1/messages`` is appended).
        timeout: seconds for the whole call.
        effort_mode: ``"thinking"`` maps ``/effort`` to :data:`THINKING_BUDGETS`;
            ``"none"`` sends no thinking (models without extended thinking).
        name: provider name used in errors.
    """

    def __init__(
        self,
        http: HttpClient,
        *,
        api_key: str,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 120.0,
        effort_mode: EffortMode = "thinking",
        name: str = "anthropic",
    ) -> None:
        self.name = name
        self._http = http
        self._api_key = api_key
        self._url = base_url.rstrip("/") + "/v1/messages"
        self._timeout = timeout
        self._effort_mode = effort_mode

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body for ``request`` (public so tests and executors can inspect it)."""
        body: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": _turns(request.messages),
        }
        if request.system:
            body["system"] = request.system
        if request.tools:
            body["tools"] = [_tool(t) for t in request.tools]
        budget = THINKING_BUDGETS[request.effort] if self._effort_mode == "thinking" else 0
        continues_tool_turn = bool(request.messages) and request.messages[-1].role == "tool"
        if budget and not continues_tool_turn:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            body["max_tokens"] = request.max_tokens + budget  # the budget counts against it
        return body

    async def complete(self, request: ModelRequest) -> LlmResponse:
        """Call the API once.

        Raises:
            ModelError: see :func:`harness.models.transport.post_json`; also ``malformed``
                when a 2xx reply has no ``content`` list.
        """
        data = await post_json(
            self._http,
            provider=self.name,
            url=self._url,
            payload=self.payload(request),
            headers={"x-api-key": self._api_key, "anthropic-version": API_VERSION},
            timeout=self._timeout,
        )
        return self.parse(data)

    def parse(self, data: dict[str, Any]) -> LlmResponse:
        """Read a Messages API reply (thinking blocks are dropped; see the module docstring).

        Raises:
            ModelError: ``malformed`` when the reply lacks the documented fields.
        """
        try:
            blocks = data["content"]
            if not isinstance(blocks, list):
                raise TypeError(f"content is {type(blocks).__name__}")
            texts = [str(b["text"]) for b in blocks if b.get("type") == "text"]
            calls = tuple(
                ToolCall(id=str(b["id"]), name=str(b["name"]), arguments=dict(b.get("input") or {}))
                for b in blocks
                if b.get("type") == "tool_use"
            )
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise malformed(self.name, f"no content blocks in reply: {error!r}") from error
        usage = data.get("usage") or {}
        return LlmResponse(
            text="\n".join(texts),
            tool_calls=calls,
            stop_reason=str(data.get("stop_reason") or ""),
            usage=Usage(
                input_tokens=int(usage.get("input_tokens") or 0),
                output_tokens=int(usage.get("output_tokens") or 0),
            ),
            raw={"id": str(data.get("id", "")), "model": str(data.get("model", ""))},
        )


def _turns(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return turns


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {"type": "tool_result", "tool_use_id": message.tool_call_id, "content": message.content}
        ]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    blocks.extend(
        {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
        for c in message.tool_calls
    )
    return blocks


def _tool(spec: ToolSpec) -> dict[str, Any]:
    schema = spec.parameters or {"type": "object", "properties": {}}
    return {"name": spec.name, "description": spec.description, "input_schema": schema}
