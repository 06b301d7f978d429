"""The first schema: artefacts, hook audit, the bot's event claims and thread bindings.

Tables that a SQLite file from before the shared database already holds (``artefact``,
``hook_audit``, created by hand-written SQL) are kept as they are: same columns.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from alembic import op

from harness.storage import schema

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_TABLES = (schema.artefact, schema.hook_audit, schema.seen_event, schema.thread_binding)


def upgrade() -> None:
    for table in _TABLES:
        table.create(op.get_bind(), checkfirst=True)


def downgrade() -> None:
    for table in reversed(_TABLES):
        table.drop(op.get_bind(), checkfirst=True)
