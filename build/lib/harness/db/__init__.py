"""The harness's SQL database: one code path for SQLite (the laptop) and PostgreSQL (a fleet).

Everything a worker or a bot persists besides Temporal's own history lives here:
artefacts, transcripts (:mod:`.transcripts`), audit records, pure executors' decisions, the
bot's event claims and thread bindings. Where it lives
is one setting, ``HARNESS_DATABASE_URL`` (``postgresql://…`` for every host of a
deployment to share); unset, each process uses a SQLite file under its data dir, as
``make run`` does. The tables are :mod:`.schema`'s, their migrations :mod:`.migrate`'s
(``python -m harness.db upgrade``), the engine and its pool :mod:`.engine`'s.
"""

from __future__ import annotations

from harness.db.connect import open_database
from harness.db.engine import Database, DatabaseError, database_url
from harness.db.transcripts import TranscriptStore

__all__ = ["Database", "DatabaseError", "TranscriptStore", "database_url", "open_database"]
