"""Contexts of the harness's own reads and writes of task artefacts (transcripts, attachments).

Two modes on the same two operations: an artefact read or written whole (a new version per
write), or an append-only log such as a task's transcript, written one entry at a time
(``append``) and read by range (``after``): one message, one write, and a run reads only
what it needs (issue 13).
"""

from __future__ import annotations

from harness.domain import Artefact
from harness.hooks.contexts.base import HookContext


class PersistenceReadContext(HookContext, operation="persistence.read", local=True):
    """An artefact is read; the body returns it, or an artefact with empty content at version 0.

    With ``after`` set, ``key`` names a log and the body returns its entries after that
    position in ``entries`` (at most ``limit``, 0: all; a negative ``after`` counts from
    the end), and in ``result`` the log's length as ``version`` (empty content).
    """

    key: str
    after: int | None = None
    limit: int = 0
    result: Artefact | None = None
    entries: tuple[Artefact, ...] = ()


class PersistenceWriteContext(HookContext, operation="persistence.write", local=True):
    """An artefact is written; the body returns it as stored (with its new version).

    With ``append``, ``content`` is one entry appended to the log ``key``; the result's
    ``version`` is its position. ``entry_id`` names the entry itself (a message's ``ts``):
    the log holds one entry per id, so the same message delivered again, in a later run or
    on another host, comes back at its first position (the idempotency key, when there is
    no ``entry_id``, covers only retries of one operation).
    """

    key: str
    content: str
    append: bool = False
    entry_id: str = ""
    result: Artefact | None = None
