"""The activity's side of messages by reference (:mod:`harness.temporal.refs`).

Before the chains run, the messages sent whole are kept in the vault and those sent by id
are read from it, so every executor, body and model sees the whole context; after, a
message of the result that the activity was sent is answered with its id. The vault is the
store every worker of a deployment shares (:class:`harness.temporal.vault.SealedVault`),
or this process's memory when a test builds activities on their own (:class:`ProcessVault`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Protocol, TypeVar, final

from harness.domain import Message
from harness.hooks import HookContext
from harness.temporal.errors import MessagesMissing
from harness.temporal.models import Changed
from harness.temporal.refs import Referenced, message_fields, numbers_of

C = TypeVar("C", bound=HookContext)


class MessageVault(Protocol):
    """Where messages sent by reference are kept, by scope (a workflow run) and number."""

    async def keep(self, scope: str, messages: Mapping[int, Message]) -> None:
        """Keep each message under its number in ``scope``; the latest write of one wins."""
        ...

    async def fetch(self, scope: str, numbers: Collection[int]) -> dict[int, Message]:
        """The messages kept under ``numbers`` in ``scope``; one not kept is left out."""
        ...


@final
class ProcessVault:
    """:class:`MessageVault` in this process's memory: one worker, or a test's activities."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, int], Message] = {}

    async def keep(self, scope: str, messages: Mapping[int, Message]) -> None:
        """See :meth:`MessageVault.keep`."""
        self._kept.update(((scope, n), m) for n, m in messages.items())

    async def fetch(self, scope: str, numbers: Collection[int]) -> dict[int, Message]:
        """See :meth:`MessageVault.fetch`."""
        return {n: m for n in numbers if (m := self._kept.get((scope, n))) is not None}


async def opened(vault: MessageVault, sent: Referenced[C]) -> C:
    """The whole context ``sent`` stands for; its messages sent whole are kept first.

    Raises:
        MessagesMissing: the vault holds none for some number (retryable: the workflow
            sends that attempt's messages whole the next time).
    """
    if sent.inline:
        await vault.keep(sent.scope, sent.inline)
    fields = {name: numbers_of(text) for name, text in sent.fields.items()}
    named = {n for numbers in fields.values() for n in numbers}
    wanted = named - sent.inline.keys()
    found = await vault.fetch(sent.scope, wanted) if wanted else {}
    if lost := wanted - found.keys():
        raise MessagesMissing(scope=sent.scope, missing=len(lost), named=len(named))
    by_number = {**found, **sent.inline}
    whole = {name: tuple(by_number[n] for n in numbers) for name, numbers in fields.items()}
    return sent.context.model_copy(update=whole)


def referred(sent: Referenced[C], ctx: C, changed: Changed) -> Changed:
    """``changed`` with each message of its message fields that ``ctx`` was sent by its
    number."""
    lists = {
        name: items
        for name in message_fields(type(ctx))
        if isinstance(items := changed.fields.get(name), list)
    }
    if not lists:
        return changed
    numbers = {
        _json_key(message.model_dump(mode="json")): n
        for name, text in sent.fields.items()
        for message, n in zip(getattr(ctx, name), numbers_of(text), strict=True)
    }
    named = {
        name: [numbers.get(_json_key(item), item) for item in items]
        for name, items in lists.items()
    }
    return Changed(fields={**changed.fields, **named})


def _json_key(value: object) -> str:
    """One message's JSON as a key: the same message gives the same key."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
