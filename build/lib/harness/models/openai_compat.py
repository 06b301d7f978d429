"""An OpenAI-compatible chat-completions provider (OpenAI, vLLM, Ollama, LM Studio, gateways).

Translates a :class:`~harness.models.base.ModelRequest` to ``POST {base_url}/chat/completions``
and the reply back to an ``LlmResponse``. ``/model`` becomes ``model`` and ``/effort``
becomes ``reasoning_effort`` (which servers without reasoning models may reject: turn
it off with ``send_reasoning_effort=False``). Streaming is deliberately not used:
one activity waits for one whole answer.
"""

from __future__ import annotations

import json
from typing import Any, Final, final

from harness.domain import LlmResponse, Message, ToolCall, ToolSpec, Usage
from harness.models.base import ModelRequest
from harness.models.transport import malformed, post_json
from harness.providers import HttpClient

DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
UNPARSED_ARGUMENTS: Final = "_unparsed_arguments"
"""Key under which tool arguments that are not a JSON object reach the tool (which then
reports an error to the model) — better than failing the whole call on a model's typo."""


@final
class OpenAICompatProvider:
    """Chat completions over the harness's HTTP client.

    Args:
        http: the worker's HTTP provider.
        api_key: sent as a bearer token; ``None`` for local servers that need none.
        base_url: up to and including ``/v1``.
        timeout: seconds for the whole call.
        send_reasoning_effort: map ``/effort`` to ``reasoning_effort``.
        max_tokens_field: ``max_completion_tokens`` (OpenAI's current name) or
            ``max_tokens`` for servers that only know the old one.
        name: provider name used in errors.
    """

    def __init__(
        self,
        http: HttpClient,
        *,
        api_key: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float = 120.0,
        send_reasoning_effort: bool = True,
        max_tokens_field: str = "max_completion_tokens",
        name: str = "openai",
    ) -> None:
        self.name = name
        self._http = http
        self._api_key = api_key
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._timeout = timeout
        self._send_effort = send_reasoning_effort
        self._max_tokens_field = max_tokens_field

    def payload(self, request: ModelRequest) -> dict[str, Any]:
        """The JSON body for ``request`` (public so tests and executors can inspect it)."""
        body: dict[str, Any] = {
            "model": request.model,
            "messages": [_message(m) for m in request.messages],
            self._max_tokens_field: request.max_tokens,
        }
        if self._send_effort:
            body["reasoning_effort"] = request.effort
        if request.tools:
            body["tools"] = [_tool(t) for t in request.tools]
        return body

    async def complete(self, request: ModelRequest) -> LlmResponse:
        """Call the API once.

        Raises:
            ModelError: see :func:`harness.models.transport.post_json`; also ``malformed``
                when a 2xx reply has no ``choices[0].message``.
        """
        headers = {"authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        data = await post_json(
            self._http,
            provider=self.name,
            url=self._url,
            payload=self.payload(request),
            headers=headers,
            timeout=self._timeout,
        )
        return self.parse(data)

    def parse(self, data: dict[str, Any]) -> LlmResponse:
        """Read a chat-completions reply.

        Raises:
            ModelError: ``malformed`` when the reply lacks the documented fields.
        """
        try:
            choice = data["choices"][0]
            message = choice["message"]
            calls = tuple(_call(c) for c in message.get("tool_calls") or ())
            text = message.get("content") or ""
            if not isinstance(text, str):
                raise TypeError(f"content is {type(text).__name__}")
        except (KeyError, IndexError, TypeError, AttributeError) as error:
            raise malformed(self.name, f"no choices[0].message in reply: {error!r}") from error
        usage = data.get("usage") or {}
        return LlmResponse(
            text=text,
            tool_calls=calls,
            stop_reason=str(choice.get("finish_reason") or ""),
            usage=Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            ),
            raw={"id": str(data.get("id", "")), "model": str(data.get("model", ""))},
        )


def _message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    return out


def _tool(spec: ToolSpec) -> dict[str, Any]:
    parameters = spec.parameters or {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": parameters},
    }


def _call(raw: dict[str, Any]) -> ToolCall:
    function = raw["function"]
    text = function.get("arguments") or "{}"
    try:
        arguments = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError:
        arguments = None
    if not isinstance(arguments, dict):
        arguments = {UNPARSED_ARGUMENTS: text}
    return ToolCall(id=str(raw["id"]), name=str(function["name"]), arguments=arguments)
