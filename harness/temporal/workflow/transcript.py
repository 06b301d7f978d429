"""Transcript: a task's messages as its workflow sees them, the store holding all of them.

Workflow code (sandboxed, deterministic). The store keeps the whole transcript, one
append per message (``persistence.write`` in append mode, :class:`harness.storage.TranscriptStore`
behind it); the workflow keeps only a reference (the key and the length) and a bounded
window of the last :data:`WINDOW` messages, which the ``transcript`` query answers and which
spots a message delivered twice. So what a message costs in history, and what a
continue-as-new carries, no longer grows with the thread (issue 13). A message the window
no longer holds is still kept once: its idempotency key (its ``ts``) is the store's.

Runs started before this (``workflow.patched`` :data:`TRANSCRIPT_LOG_PATCH` false on
replay) keep the old way: the whole transcript in the workflow and rewritten as one
artefact per message. The first run in the new way appends such an artefact's messages to
the log once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from harness.domain import ChannelMessage
    from harness.hooks.contexts import PersistenceReadContext, PersistenceWriteContext
    from harness.temporal.models import TRANSCRIPT, TranscriptRef
    from harness.temporal.workflow.retries import OperationRunner

TRANSCRIPT_LOG_PATCH: Final = "transcript-log-v1"
RECORDED_LOAD_PATCH: Final = "transcript-recorded-load-v1"
"""``workflow.patched`` id: since issue 27 the read that starts a run is recorded before any
message is taken (:meth:`OperationRunner.recorded`)."""
WINDOW: Final = 20
"""Messages the workflow keeps (and carries to its next run): the last ones."""


class Transcript:
    """The transcript of one task run.

    Args:
        key: the transcript's key in the store.
        ops: the workflow's operation runner.
        common: the common context fields for a correlation id.
    """

    def __init__(
        self, key: str, ops: OperationRunner, common: Callable[[str], dict[str, Any]]
    ) -> None:
        self.key = key
        self.length = 0
        self._ops = ops
        self._common = common
        self._recent: tuple[ChannelMessage, ...] = ()
        self._log = True

    @property
    def recent(self) -> tuple[ChannelMessage, ...]:
        """The last messages, oldest first (all of them in a run of the old way)."""
        return self._recent

    def ref(self) -> TranscriptRef | None:
        """What the next run starts from: the length and the window, not the messages
        (``None`` from a run of the old way: the next one moves the artefact over)."""
        return TranscriptRef(length=self.length, recent=self._recent) if self._log else None

    async def load(self, carried: TranscriptRef | None, *, continued: bool) -> None:
        """Start the run: from what the previous run carried, else from the store; a run
        continued from one of the old way moves its artefact into the log."""
        self._log = workflow.patched(TRANSCRIPT_LOG_PATCH)
        if self._log and carried is not None:
            self.length, self._recent = carried.length, carried.recent
            return
        if self._log:
            tail = await self._read(after=-WINDOW)
            if workflow.patched(RECORDED_LOAD_PATCH):
                # What the store held before this run: no append of its own may show.
                await self._ops.recorded(PersistenceReadContext)
            self.length = tail.result.version if tail.result is not None else 0
            self._recent = tuple(
                ChannelMessage.model_validate_json(e.content) for e in tail.entries
            )
            if self.length or not continued:
                return
        whole = await self._ops.run(PersistenceReadContext(**self._common(""), key=self.key))
        older: tuple[ChannelMessage, ...] = ()
        if whole.result is not None and whole.result.content:
            older = TRANSCRIPT.validate_json(whole.result.content)
        if not self._log:
            self._recent, self.length = older, len(older)
            return
        for index, message in enumerate(older, start=1):  # once: the store was an artefact
            await self._append(message, f"artefact/{index}")
        self.length, self._recent = len(older), older[-WINDOW:]

    def position_of(self, ts: str) -> int:
        """The position of the message ``ts`` if the window holds it, else 0."""
        if not ts:
            return 0
        first = self.length - len(self._recent) + 1
        for index, seen in enumerate(self._recent, start=first):
            if seen.ts == ts:
                return index
        return 0

    async def add(self, message: ChannelMessage, correlation_id: str) -> tuple[int, bool]:
        """Store ``message`` (one write); returns its position and whether it is new.

        A message the store holds already (same ``ts``: a delivery the window forgot) is
        not new, and comes back at its first position.
        """
        if not self._log:
            transcript = (*self._recent, message)
            await self._ops.run(
                PersistenceWriteContext(
                    **self._common(correlation_id),
                    key=self.key,
                    content=TRANSCRIPT.dump_json(transcript).decode(),
                ),
            )
            self._recent, self.length = transcript, len(transcript)
            return self.length, True
        # A message without a ts has no identity of its own: only the retries of this
        # append are kept once (the operation's idempotency key).
        once = f"message/{message.ts}" if message.ts else ""
        stored = await self._append(message, once, correlation_id)
        if stored <= self.length:  # the store held it already: its first position
            return stored, False
        # The next position is the task's to count (one run appends at a time); the store's
        # answer only tells a repeat (a body that replaced the store may number otherwise).
        self.length += 1
        self._recent = (*self._recent, message)[-WINDOW:]
        return self.length, True

    async def _append(self, message: ChannelMessage, once: str, correlation_id: str = "") -> int:
        out = await self._ops.run(
            PersistenceWriteContext(
                **self._common(correlation_id),
                key=self.key,
                append=True,
                content=message.model_dump_json(),
                entry_id=once,
            ),
        )
        return out.result.version if out.result is not None else self.length + 1

    async def _read(self, *, after: int) -> PersistenceReadContext:
        return await self._ops.run(
            PersistenceReadContext(**self._common(""), key=self.key, after=after),
        )
