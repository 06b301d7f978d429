"""The offline model: deterministic answers from the request alone, no network, no credentials.

It is the default when no provider is configured, so the worker and the tests can
drive every path of the agent loop. It is *not* a language model; it follows
conventions written into the user's text, and always answers the same input the
same way:

- ``call <tool> {json}`` (one or more, anywhere in the last user message) asks for
  those tool calls, if the tools are offered; once their results are back it answers
  with them. ``call ask_human {"question": "..."}`` is how it asks people for help.
- Triage (``purpose="triage"``): ``ask: <question>`` → ask; ``plan: a; b; c`` → plan;
  any ``call`` → run the main loop; anything else → answer directly.
- Plans (``purpose="plan"``): the steps after ``plan:``, split on ``;`` or new lines;
  a step starting ``@name`` is given to the named agent.
- Summaries (``purpose="summary"``): the first words of each line, bounded in length.

Triage and plans are answered as JSON text, exactly what the real providers are asked
for, so the parsing in :mod:`harness.agent` is exercised the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Final, final

from harness.agent.tokens import estimate_tokens
from harness.domain import LlmResponse, Message, ToolCall, Usage
from harness.models.base import ModelRequest

OFFLINE_MODEL: Final = "offline"
"""The model name that always selects this provider, configured or not."""

_CALL: Final = re.compile(r"\bcall\s+([A-Za-z_][\w-]*)")
_ASK: Final = re.compile(r"\bask:\s*(.+)", re.IGNORECASE)
_PLAN: Final = re.compile(r"\bplan:\s*(.+)", re.IGNORECASE | re.DOTALL)
_BULLET: Final = re.compile(r"^\s*(?:[-*]|\d+[.)])\s*")
_AGENT: Final = re.compile(r"^@([\w-]+)\s+")
SUMMARY_LINES: Final = 12
SUMMARY_LINE_CHARS: Final = 48


def parse_calls(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The ``call <tool> {json}`` requests in ``text``, in order.

    Arguments that are not a JSON object are ignored (the tool gets ``{}``), so a
    sentence like "call me later" costs nothing worse than an unknown tool.
    """
    calls: list[tuple[str, dict[str, Any]]] = []
    decoder = json.JSONDecoder()
    for match in _CALL.finditer(text):
        rest = text[match.end() :].lstrip()
        arguments: dict[str, Any] = {}
        if rest.startswith("{"):
            try:
                value, _ = decoder.raw_decode(rest)
            except json.JSONDecodeError:
                value = {}
            if isinstance(value, dict):
                arguments = value
        calls.append((match.group(1), arguments))
    return calls


@final
class OfflineModel:
    """A :class:`~harness.models.base.ModelProvider` that follows text conventions.

    Args:
        name: the provider name reported in errors and responses.
    """

    def __init__(self, name: str = OFFLINE_MODEL) -> None:
        self.name = name

    async def complete(self, request: ModelRequest) -> LlmResponse:
        """Answer ``request`` deterministically (see the module docstring)."""
        calls: tuple[ToolCall, ...] = ()
        if request.purpose == "triage":
            text = self._triage(_last_user(request.messages))
        elif request.purpose == "plan":
            text = self._plan(_last_user(request.messages))
        elif request.purpose == "summary":
            text = self._summary(_last_user(request.messages))
        else:
            text, calls = self._chat(request)
        usage = Usage(
            input_tokens=estimate_tokens(request.messages), output_tokens=(len(text) + 3) // 4
        )
        return LlmResponse(
            text=text,
            tool_calls=calls,
            stop_reason="tool_use" if calls else "end_turn",
            usage=usage,
            raw={"provider": self.name, "model": request.model, "purpose": request.purpose},
        )

    def _chat(self, request: ModelRequest) -> tuple[str, tuple[ToolCall, ...]]:
        messages = request.messages
        last = max((i for i, m in enumerate(messages) if m.role == "user"), default=-1)
        prompt = messages[last].content if last >= 0 else ""
        results = [m for m in messages[last + 1 :] if m.role == "tool"]
        if results:
            lines = [f"- {m.name or m.tool_call_id}: {m.content}" for m in results]
            return "Tool results:\n" + "\n".join(lines), ()
        offered = {tool.name for tool in request.tools}
        wanted = parse_calls(prompt)
        calls = tuple(
            ToolCall(id=_call_id(last, prompt, i), name=name, arguments=args)
            for i, (name, args) in enumerate(wanted)
            if name in offered
        )
        missing = sorted({name for name, _ in wanted if name not in offered})
        if calls:
            return f"Calling {', '.join(c.name for c in calls)}.", calls
        if missing:
            return f"I cannot call {', '.join(missing)}: not offered to me.", ()
        return f"Offline model ({request.model}) read: {_clip(prompt, 200)}", ()

    @staticmethod
    def _triage(text: str) -> str:
        if ask := _ASK.search(text):
            verdict = {"decision": "ask", "question": ask.group(1).strip().splitlines()[0]}
        elif _PLAN.search(text):
            verdict = {"decision": "plan"}
        elif parse_calls(text):
            verdict = {"decision": "answer", "answer": ""}
        else:
            verdict = {"decision": "answer", "answer": f"(offline) {_clip(text, 200)}"}
        return json.dumps(verdict)

    @staticmethod
    def _plan(goal: str) -> str:
        found = _PLAN.search(goal)
        body = found.group(1) if found else goal
        parts = [_BULLET.sub("", p).strip() for p in re.split(r"[;\n]", body)]
        steps = []
        for part in filter(None, parts):
            agent = _AGENT.match(part)
            detail = part[agent.end() :] if agent else part
            name = agent.group(1) if agent else ""
            steps.append({"title": _clip(detail, 60), "detail": detail, "agent": name})
        return json.dumps({"steps": steps or [{"title": _clip(goal, 60), "detail": goal}]})

    @staticmethod
    def _summary(text: str) -> str:
        lines = [line for line in text.splitlines() if line.strip()]
        head = " | ".join(_clip(line, SUMMARY_LINE_CHARS) for line in lines[:SUMMARY_LINES])
        more = f" | … {len(lines) - SUMMARY_LINES} more" if len(lines) > SUMMARY_LINES else ""
        return f"Summary of {len(lines)} earlier messages: {head}{more}"

    def __repr__(self) -> str:
        return f"<OfflineModel {self.name}>"


def _last_user(messages: tuple[Message, ...]) -> str:
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


def _call_id(index: int, prompt: str, position: int) -> str:
    # Stable for the same conversation, distinct between turns (the user message differs).
    digest = hashlib.sha256(f"{index}:{prompt}".encode()).hexdigest()[:10]
    return f"call_{digest}_{position}"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
