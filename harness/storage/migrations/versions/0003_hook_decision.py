"""Pure executors' recorded decisions (issue 15, point 7): one row per key, with its expiry.

Written out here rather than created from :mod:`harness.storage.schema`, so a later change to the
table is a later revision and this one stays what it was.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "hook_decision",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("decision", sa.Text, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("hook_decision_expires", "hook_decision", ["expires_at"])


def downgrade() -> None:
    op.drop_index("hook_decision_expires", table_name="hook_decision")
    op.drop_table("hook_decision")
