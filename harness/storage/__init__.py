"""Every store of the harness, on one SQL database: SQLite (the laptop) or PostgreSQL (a fleet).

Everything a worker or a bot persists besides Temporal's own history lives here, one
module per store: artefacts (:mod:`.artefacts`), transcripts (:mod:`.transcripts`),
audit records (:mod:`.audit`), payloads too large for
Temporal's history (:mod:`.payloads`), pure executors' decisions (:mod:`.decisions`), executor
stats (:mod:`.executor_stats`), the bot's event claims and thread bindings
(:mod:`.ledger`). Where it lives is one setting, ``HARNESS_DATABASE_URL``
(``postgresql://…`` for every host of a deployment to share); unset, each process uses a
SQLite file under its data dir, as ``make run`` does. The tables are :mod:`.schema`'s,
their migrations :mod:`.migrate`'s (``python -m harness.storage upgrade``), the engine and
its pool :mod:`.engine`'s. Storage sits under the layers that use it (bodies, tools,
temporal, plugins, bot) and imports none of them; the stores that implement a hooks
Protocol import its value types from :mod:`harness.hooks`.
"""

from __future__ import annotations

from harness.storage.connect import open_database
from harness.storage.engine import Database, DatabaseError, database_url
from harness.storage.payloads import PayloadStore
from harness.storage.transcripts import TranscriptStore

__all__ = [
    "Database",
    "DatabaseError",
    "PayloadStore",
    "TranscriptStore",
    "database_url",
    "open_database",
]
