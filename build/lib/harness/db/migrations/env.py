"""Alembic's entry: migrate the connection :mod:`harness.db.migrate` hands over (online only)."""

from __future__ import annotations

from alembic import context

from harness.db.migrate import VERSION_TABLE
from harness.db.schema import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
