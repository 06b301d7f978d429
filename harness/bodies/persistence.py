"""Default bodies of persistence.read and persistence.write, and the worker's loop defaults.

Reads and writes go to the :class:`~harness.storage.artefacts.ArtefactStore`; appends and
range reads of a log (a task's transcript) to the :class:`~harness.storage.TranscriptStore`.
One key is the worker's, not the store's: a read of
:data:`~harness.agent.state.LOOP_DEFAULTS_KEY` is answered before the store
(:data:`LOOP_DEFAULTS_PRIORITY`) with this worker's
:class:`~harness.agent.state.LoopDefaults`, so the task workflow learns its tools and
budgets through a hooked operation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Self, final

from harness import replies
from harness.agent.state import LOOP_DEFAULTS_KEY, LoopDefaults
from harness.bodies.marker import Bodies, Wiring, body
from harness.bodies.tool import catalogue_of
from harness.domain import Artefact
from harness.hooks import HookAbort
from harness.hooks.contexts import PersistenceReadContext, PersistenceWriteContext

if TYPE_CHECKING:
    from harness.bodies.deps import Resources
    from harness.storage import TranscriptStore
    from harness.storage.artefacts import ArtefactStore
    from harness.tools import ToolRegistry

LOOP_DEFAULTS_PRIORITY: Final = 900
"""Before the store's body (1000): the key is the worker's, not the store's."""


@final
class PersistenceBodies(Bodies):
    """Bodies of the store operations.

    Args:
        store: where reads and writes go.
        transcripts: where appends and range reads go (``None``: logs are refused).
    """

    def __init__(self, *, store: ArtefactStore, transcripts: TranscriptStore | None = None) -> None:
        self.store = store
        self.transcripts = transcripts

    @classmethod
    def wired(cls, wiring: Wiring) -> Self:
        """Built from the worker's dependencies."""
        return cls(store=wiring.deps.store, transcripts=wiring.deps.transcripts)

    @body(PersistenceReadContext)
    async def persistence_read(self, ctx: PersistenceReadContext) -> PersistenceReadContext:
        """Read the latest version, or an empty artefact at version 0 when there is none;
        with ``after``, a range of the log and its length."""
        if ctx.after is not None:
            entries, length = await self._log().span(ctx.key, after=ctx.after, limit=ctx.limit)
            summary = Artefact(key=ctx.key, content="", version=length)
            return ctx.model_copy(update={"result": summary, "entries": entries})
        found = await self.store.read(ctx.key)
        return ctx.model_copy(update={"result": found or Artefact(key=ctx.key, content="")})

    @body(PersistenceWriteContext)
    async def persistence_write(self, ctx: PersistenceWriteContext) -> PersistenceWriteContext:
        """Write a new version (or append an entry), once per idempotency key (activities run
        at least once)."""
        if ctx.append:
            once = ctx.entry_id or ctx.idempotency_key
            entry = await self._log().append(ctx.key, ctx.content, idempotency_key=once)
            return ctx.model_copy(update={"result": entry})
        stored = await self.store.write(ctx.key, ctx.content, idempotency_key=ctx.idempotency_key)
        return ctx.model_copy(update={"result": stored})

    def _log(self) -> TranscriptStore:
        if self.transcripts is None:
            raise HookAbort(replies.NO_TRANSCRIPTS)  # BodyDeps.transcripts was not given
        return self.transcripts


LOOP_DEFAULTS_POINT: Final = f"{PersistenceReadContext.operation}.in"
"""Where :class:`LoopDefaultsAnswer` is registered, and where the runtime looks for it."""


@final
class LoopDefaultsAnswer:
    """Answers a read of :data:`LOOP_DEFAULTS_KEY`; passes every other key through.

    It also carries the worker's :class:`~harness.bodies.deps.Resources`: the manager
    closes every executor that has an ``aclose`` when it closes
    (:meth:`~harness.hooks.HookManager.aclose`), and this one is in every worker.

    Args:
        tools: the worker's tools (listed at each read: MCP tools join after start).
        loop: the limits from the worker's settings.
        resources: what to close with the manager, if anything.
    """

    def __init__(
        self, *, tools: ToolRegistry, loop: LoopDefaults, resources: Resources | None = None
    ) -> None:
        self.tools = tools
        self.loop = loop
        self.resources = resources

    def defaults(self) -> LoopDefaults:
        """The loop defaults of this worker (its tools as they are now)."""
        return self.loop.model_copy(update={"catalogue": catalogue_of(self.tools)})

    async def __call__(self, ctx: PersistenceReadContext, /) -> PersistenceReadContext | None:
        """The defaults as the artefact's JSON content, for their key only."""
        if ctx.key != LOOP_DEFAULTS_KEY:
            return None
        content = self.defaults().model_dump_json()
        return ctx.model_copy(update={"result": Artefact(key=ctx.key, content=content)})

    async def aclose(self) -> None:
        """Close the worker's resources (HTTP client, MCP sessions)."""
        if self.resources is not None:
            await self.resources.aclose()

    def __repr__(self) -> str:
        return f"<LoopDefaultsAnswer {self.tools!r}>"
