"""Executor stats (issue 15, point 4): each worker's per-executor calls by decision and latency
histogram, one row per executor per flush window.

Written out here rather than created from :mod:`harness.storage.schema`, so a later change to the
table is a later revision and this one stays what it was.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "hook_executor_stats",
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("since", sa.Float, nullable=False),
        sa.Column("worker", sa.Text, nullable=False),
        sa.Column("point", sa.Text, nullable=False),
        sa.Column("executor", sa.Text, nullable=False),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("counts", sa.Text, nullable=False),
        sa.Column("buckets", sa.Text, nullable=False),
        sa.Column("max_ms", sa.Float, nullable=False),
        sa.Column("total_ms", sa.Float, nullable=False),
    )
    op.create_index("hook_executor_stats_at", "hook_executor_stats", ["at"])


def downgrade() -> None:
    op.drop_index("hook_executor_stats_at", "hook_executor_stats")
    op.drop_table("hook_executor_stats")
