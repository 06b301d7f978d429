"""Pure executors' decisions in the harness's database: what a retry on any host reuses.

The SQL :class:`~harness.hooks.DecisionStore` (issue 15, point 7): a row per key of the
redacted context, with its expiry; the next put after :data:`PURGE_EVERY_SECONDS` deletes
the expired rows. What is recorded and when is :mod:`harness.hooks.pure`'s; the table is
:data:`harness.storage.schema.hook_decision`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final, final

from pydantic import ValidationError
from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite

from harness.hooks import RecordedDecision
from harness.storage import Database, DatabaseError
from harness.storage.schema import hook_decision

log = logging.getLogger(__name__)

PURGE_EVERY_SECONDS: Final = 60.0
"""How often (at most) a process deletes expired decisions, on its next put."""


@final
class SqlDecisionStore:
    """Recorded decisions in ``hook_decision``, shared by every worker on the database.

    A database that fails is a miss, logged at warning: the executor is pure, so calling
    it again is always correct, and an operation never fails because its cache did.

    Args:
        database: the process's open database.
        clock: wall-clock seconds (expiries are compared across hosts); a provider for tests.
    """

    def __init__(self, database: Database, *, clock: Callable[[], float] = time.time) -> None:
        self.database = database
        self._clock = clock
        self._purged = 0.0

    async def get(self, key: str) -> RecordedDecision | None:
        """The decision recorded under ``key``, unless it expired (or cannot be read)."""
        query = select(hook_decision.c.decision).where(
            hook_decision.c.key == key, hook_decision.c.expires_at > self._clock()
        )
        try:
            async with self.database.transaction() as connection:
                text = await connection.scalar(query)
        except DatabaseError as error:
            log.warning("pure decisions unavailable, calling the executor: %s", error)
            return None
        if text is None:
            return None
        try:
            return RecordedDecision.model_validate_json(text)
        except ValidationError:  # a row of another release, or damaged: decide again
            log.warning("recorded decision %s is unreadable; the executor decides again", key[:12])
            return None

    async def put(self, key: str, decision: RecordedDecision, ttl_seconds: float) -> None:
        """Record ``decision`` under ``key`` for ``ttl_seconds`` (replacing an older one)."""
        now = self._clock()
        row = {"key": key, "decision": decision.model_dump_json(), "expires_at": now + ttl_seconds}
        dialect = postgresql if self.database.dialect == "postgresql" else sqlite
        insert = dialect.insert(hook_decision).values(row)
        upsert = insert.on_conflict_do_update(
            index_elements=[hook_decision.c.key],
            set_={"decision": insert.excluded.decision, "expires_at": insert.excluded.expires_at},
        )
        try:
            async with self.database.transaction() as connection:
                await connection.execute(upsert)
                if now - self._purged >= PURGE_EVERY_SECONDS:
                    await connection.execute(
                        delete(hook_decision).where(hook_decision.c.expires_at <= now)
                    )
                    self._purged = now
        except DatabaseError as error:
            log.warning("pure decision not recorded (a retry calls the executor again): %s", error)

    async def purge(self) -> int:
        """Delete every expired decision now.

        Returns:
            How many rows were deleted.

        Raises:
            DatabaseError: the database failed.
        """
        now = self._clock()
        async with self.database.transaction() as connection:
            result = await connection.execute(
                delete(hook_decision).where(hook_decision.c.expires_at <= now)
            )
        self._purged = now
        return int(result.rowcount or 0)
