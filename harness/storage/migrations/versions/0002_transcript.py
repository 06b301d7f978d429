"""Append-only transcripts (issue 13): one row per message instead of the whole transcript
rewritten as a new artefact version at every message.

Written out here rather than created from :mod:`harness.storage.schema`, so a later change to the
table is a later revision and this one stays what it was.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "transcript",
        sa.Column("task_key", sa.Text, nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("idempotency_key", sa.Text, nullable=True),
        sa.PrimaryKeyConstraint("task_key", "position", name="transcript_pkey"),
        sa.UniqueConstraint("task_key", "idempotency_key", name="transcript_once"),
    )


def downgrade() -> None:
    op.drop_table("transcript")
