"""The payload store: Temporal payloads too large for history, sealed, by content reference.

:class:`harness.temporal.offload.OffloadingCodec` puts a payload over its inline bound here
and leaves history a reference (issue 27). A row is the sealed payload's bytes (base64) in
the ``artefact`` table under ``payload/<keyed hash>``, written once: the key names the
content, so a second write of it (a retry, a replay, another host) adds nothing. The
database is opened on first use, since most processes never meet a payload that large.
"""

from __future__ import annotations

import asyncio
import base64
from typing import Final, final

from sqlalchemy.engine import URL

from harness.storage.artefacts import SqlArtefactStore
from harness.storage.connect import open_database

_ONCE: Final = "payload"


@final
class PayloadStore:
    """Sealed payload bytes by key, in the database every host of a deployment shares.

    Args:
        url: the database (:attr:`harness.config.Settings.database`).
        migrate: bring its tables up to date when opening (a process that owns them, as a
            test's); a worker migrates them at its start, so by default this only opens.
    """

    def __init__(self, url: URL, *, migrate: bool = False) -> None:
        self._url = url
        self._migrate = migrate
        self._store: SqlArtefactStore | None = None
        self._opening = asyncio.Lock()

    async def put(self, key: str, sealed: bytes) -> None:
        """Keep ``sealed`` under ``key``; a key kept already stays as it is."""
        store = await self._opened()
        await store.write(key, base64.b64encode(sealed).decode("ascii"), idempotency_key=_ONCE)

    async def get(self, key: str) -> bytes | None:
        """The bytes kept under ``key``, or ``None``."""
        found = await (await self._opened()).read(key, version=1)
        return None if found is None else base64.b64decode(found.content)

    async def aclose(self) -> None:
        """Close the database if it was opened."""
        if self._store is not None:
            database, self._store = self._store.database, None
            await database.aclose()

    async def _opened(self) -> SqlArtefactStore:
        async with self._opening:
            if self._store is None:
                database = await open_database(
                    self._url, pool_size=2, migrate=self._migrate, check=False
                )
                self._store = SqlArtefactStore(database)
            return self._store
