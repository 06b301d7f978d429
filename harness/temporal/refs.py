"""Messages by reference: the loop's messages reach an activity once, then by number.

A model call's context holds the conversation so far, and so do the prompt's assembly and
triage: four copies of a window that grows with the thread went into every message's
history (issue 27: 29 KB opened per message at message 30, of which 21 KB were those
copies). Here a context's message fields (each ``tuple[Message, ...]`` field,
:func:`message_fields`) travel as :class:`Referenced`: each message's number in this run,
written as spans (``1-24,26``), and whole only the messages the store may not hold yet.
The activity keeps those in the store every worker shares and reads the rest from it
(:mod:`harness.temporal.activity.referenced`), so hooks and the model see the whole
context, as before. Its result names a message it was sent by its number too.

:class:`MessageRefs` is the workflow's side. A run numbers each message object the first
time it sends it (deterministic: the same order on replay), and counts one as held once an
activity it was sent whole to has answered. Numbers are the run's own (``scope``): a new
run (continue-as-new) sends its window whole once, and a local step run again after a
lost workflow task may give a number new content, so the store keeps the latest write.

Pure values and deterministic code: workflow code imports this module passed through.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterable
from typing import Generic, TypeVar

from pydantic import Field

from harness.domain import Frozen, Message
from harness.hooks import HookContext
from harness.temporal.models import Changed, applied

C = TypeVar("C", bound=HookContext)


@functools.cache
def message_fields(context: type[HookContext]) -> tuple[str, ...]:
    """The fields of ``context`` that hold messages (``tuple[Message, ...]``, or ``None``).

    Derived from the type, so a context added later (a plugin's) goes by reference too.
    """
    wanted = tuple[Message, ...]

    def holds(annotation: object) -> bool:
        if annotation == wanted:
            return True
        union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
        return union and wanted in typing.get_args(annotation)

    return tuple(name for name, field in context.model_fields.items() if holds(field.annotation))


def spans(numbers: Iterable[int]) -> str:
    """``[1, 2, 3, 5]`` as ``"1-3,5"``: a window of consecutive messages in a few bytes."""
    parts: list[str] = []
    first = last = None
    for n in numbers:
        if last is not None and n == last + 1:
            last = n
            continue
        if first is not None:
            parts.append(f"{first}-{last}" if last != first else f"{first}")
        first = last = n
    if first is not None:
        parts.append(f"{first}-{last}" if last != first else f"{first}")
    return ",".join(parts)


def numbers_of(text: str) -> list[int]:
    """What :func:`spans` wrote, back as numbers.

    Raises:
        ValueError: ``text`` is not spans of numbers.
    """
    numbers: list[int] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return numbers


class Referenced(Frozen, Generic[C]):
    """An activity's input with its message fields by reference.

    ``context`` is the context with those fields empty; ``fields`` gives, per field, its
    messages' numbers as spans; ``inline`` holds the messages the store may not have yet,
    by number; ``scope`` is whose numbers they are (the workflow run).
    """

    context: C
    scope: str
    fields: dict[str, str] = Field(default_factory=dict)
    inline: dict[int, Message] = Field(default_factory=dict)

    @staticmethod
    def of(ctx: C, scope: str, fields: dict[str, str], inline: dict[int, Message]) -> Referenced[C]:
        """``ctx`` as :class:`Referenced`, its message fields named in ``fields`` emptied."""
        context = ctx.model_copy(update=dict.fromkeys(fields, ()))
        # Parametrised by the context's own class, so it serialises as that class, whole.
        form: type[Referenced[C]] = Referenced.__class_getitem__(type(ctx))  # type: ignore[assignment]  # pydantic's parametrised class
        return form(context=context, scope=scope, fields=fields, inline=inline)


class MessageRefs:
    """One workflow run's side: which messages to send whole, and what a result names.

    Args:
        scope: the run (its workflow and run ids): whose numbers these are.
    """

    def __init__(self, scope: str) -> None:
        self.scope = scope
        self._held: set[int] = set()
        self._numbers: dict[int, tuple[Message, int]] = {}
        self._by_number: dict[int, Message] = {}
        self._by_content: dict[str, int] = {}

    def number(self, message: Message) -> int:
        """The run's number for ``message``: the same for the same content (a prompt's system
        message, assembled anew every turn, is one message), looked up once per object."""
        seen = self._numbers.get(id(message))
        if seen is not None and seen[0] is message:
            return seen[1]
        content = message.model_dump_json()
        number = self._by_content.setdefault(content, len(self._by_content) + 1)
        self._numbers[id(message)] = (message, number)
        self._by_number.setdefault(number, message)
        return number

    def send(self, ctx: C) -> Referenced[C]:
        """``ctx`` with its messages by number; whole only those the store may not hold."""
        fields: dict[str, str] = {}
        inline: dict[int, Message] = {}
        for name in message_fields(type(ctx)):
            messages = getattr(ctx, name)
            if messages is None:
                continue
            numbers = [self.number(m) for m in messages]
            fields[name] = spans(numbers)
            inline.update(
                (n, m) for n, m in zip(numbers, messages, strict=True) if n not in self._held
            )
        return Referenced.of(ctx, self.scope, fields, inline)

    def ended(self, sent: Referenced[C]) -> None:
        """The activity ``sent`` went to answered: the store holds its messages now."""
        self._held.update(sent.inline)

    def failed(self, sent: Referenced[C]) -> None:
        """The attempt failed: send its messages whole next time (a store that lost them,
        or a worker on another database, costs an attempt, not the task)."""
        for text in sent.fields.values():
            self._held.difference_update(numbers_of(text))

    def applied(self, ctx: C, changed: Changed) -> C:
        """``ctx`` with what the chains changed; a message the result names by number is
        the one this run numbered so."""
        resolved = {
            name: [self._by_number[i] if isinstance(i, int) else i for i in items]
            for name in message_fields(type(ctx))
            if isinstance(items := changed.fields.get(name), list)
        }
        if not resolved:
            return applied(ctx, changed)
        return type(ctx).model_validate({**dict(ctx), **changed.fields, **resolved})


__all__ = [
    "MessageRefs",
    "Referenced",
    "message_fields",
    "numbers_of",
    "spans",
]
