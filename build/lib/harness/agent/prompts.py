"""The prompts the default bodies send for triage, plans and summaries, and their parsers.

Models are asked for JSON; parsers are lenient (the first JSON object anywhere in the
text, code fences and prose around it allowed) and fall back to a safe reading rather
than failing the operation: a triage that cannot be read runs the main loop, a plan
that cannot be read is one step (the goal itself).
"""

from __future__ import annotations

import json
from typing import Any, Final

from pydantic import ValidationError

from harness.domain import Message, Plan, PlanStep, Triage

BASE_INSTRUCTIONS: Final = (
    "You are the agent of a chat-ops task. Answer the people in the thread. Use the "
    "tools offered when they help; call ask_human when you need a decision or a fact "
    "only a person has."
)

TRIAGE_PROMPT: Final = (
    "Triage the user's request. Reply with one JSON object and nothing else: "
    '{"decision": "answer", "answer": "<the full answer>"} when you can answer at once '
    "without tools; "
    '{"decision": "answer", "answer": ""} when it needs tools but no plan; '
    '{"decision": "plan"} when it needs several steps; '
    '{"decision": "ask", "question": "<question>"} when it cannot be done without '
    "asking the people first."
)

PLAN_PROMPT: Final = (
    "Write a plan for the user's goal. Reply with one JSON object and nothing else: "
    '{"steps": [{"title": "<short>", "detail": "<what to do>", "agent": ""}]}. '
    "Set agent only to a named agent you were told about."
)

SUMMARY_PROMPT: Final = (
    "Summarise the conversation below for your own later use: decisions, facts, open "
    "questions, tool results that matter. Be brief; do not invent anything."
)

SUMMARY_PREFIX: Final = "Summary of the earlier conversation: "


def find_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` (inside fences or prose), or ``None``."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


def parse_triage(text: str) -> Triage:
    """The triage verdict in ``text``; an unreadable one runs the main loop."""
    found = find_json_object(text)
    try:
        return Triage.model_validate(found or {})
    except ValidationError:
        return Triage(decision="answer", answer="")


def parse_plan(text: str, goal: str) -> Plan:
    """The plan in ``text``; an unreadable or empty one is the goal as a single step."""
    found = find_json_object(text) or {}
    steps: list[PlanStep] = []
    for raw in found.get("steps") or ():
        if isinstance(raw, dict) and raw.get("title"):
            try:
                steps.append(
                    PlanStep.model_validate({k: raw[k] for k in raw if k in PlanStep.model_fields})
                )
            except ValidationError:
                continue
    return Plan(steps=tuple(steps) or (PlanStep(title=goal[:60], detail=goal),))


def render_transcript(messages: tuple[Message, ...]) -> str:
    """One line per message (``role: text``, tool calls and results marked) for summaries."""
    lines = []
    for message in messages:
        text = " ".join(message.content.split())
        if message.role == "tool":
            lines.append(f"tool {message.name or message.tool_call_id}: {text}")
            continue
        calls = ", ".join(f"{c.name}({json.dumps(c.arguments)})" for c in message.tool_calls)
        lines.append(f"{message.role}: {text}" + (f" [calls {calls}]" if calls else ""))
    return "\n".join(lines)
