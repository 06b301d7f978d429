"""Contexts of the harness's own reads and writes of task artefacts (transcripts, attachments)."""

from __future__ import annotations

from typing import ClassVar

from harness.domain import Artefact
from harness.hooks.contexts.base import HookContext


class PersistenceReadContext(HookContext):
    """An artefact is read; the body returns it, or an artefact with empty content at version 0."""

    operation: ClassVar[str] = "persistence.read"
    key: str
    result: Artefact | None = None


class PersistenceWriteContext(HookContext):
    """An artefact is written; the body returns it as stored (with its new version)."""

    operation: ClassVar[str] = "persistence.write"
    key: str
    content: str
    result: Artefact | None = None
