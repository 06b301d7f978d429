"""Alembic's entry: migrate the connection :mod:`harness.storage.migrate` hands over (online)."""

from __future__ import annotations

from alembic import context

from harness.storage.migrate import VERSION_TABLE
from harness.storage.schema import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
