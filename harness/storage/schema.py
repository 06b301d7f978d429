"""The tables, written once: migrations, stores and tests all read them from here.

Types are the portable subset (text, integers, floats) so SQLite and PostgreSQL hold
the same rows; every query is SQLAlchemy Core over these objects, never SQL text.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Column,
    Float,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
)

METADATA: Final = MetaData()

# Integer ids that autoincrement on both engines (BIGSERIAL on PostgreSQL, ROWID on SQLite).
_ID: Final = BigInteger().with_variant(Integer(), "sqlite")

artefact: Final = Table(
    "artefact",
    METADATA,
    Column("key", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("content", Text, nullable=False),
    Column("idempotency_key", Text, nullable=True),
    PrimaryKeyConstraint("key", "version", name="artefact_pkey"),
    UniqueConstraint("key", "idempotency_key", name="artefact_once"),
)
"""Versioned artefacts: a write adds ``(key, version + 1)``; one row per idempotency key."""

hook_audit: Final = Table(
    "hook_audit",
    METADATA,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("kind", Text, nullable=False),
    Column("point", Text, nullable=False),
    Column("executor", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("correlation_id", Text, nullable=False),
    Column("task_id", Text, nullable=False),
    Index("hook_audit_task", "task_id", "id"),
)
"""Every abort, refusal and dry-run verdict the hook manager audits (reasons redacted)."""

hook_executor_stats: Final = Table(
    "hook_executor_stats",
    METADATA,
    Column("id", _ID, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("since", Float, nullable=False),
    Column("worker", Text, nullable=False),
    Column("point", Text, nullable=False),
    Column("executor", Text, nullable=False),
    Column("kind", Text, nullable=False),
    Column("counts", Text, nullable=False),
    Column("buckets", Text, nullable=False),
    Column("max_ms", Float, nullable=False),
    Column("total_ms", Float, nullable=False),
    Index("hook_executor_stats_at", "at"),
)
"""Each worker's executor calls per flush window: counts by decision and latency buckets (JSON),
added up by ``python -m harness.hooks stats`` (:mod:`harness.storage.executor_stats`)."""

hook_decision: Final = Table(
    "hook_decision",
    METADATA,
    Column("key", Text, primary_key=True),
    Column("decision", Text, nullable=False),
    Column("expires_at", Float, nullable=False),
    Index("hook_decision_expires", "expires_at"),
)
"""Pure executors' decisions by key of the redacted context, reused until they expire."""

seen_event: Final = Table(
    "seen_event",
    METADATA,
    Column("key", Text, primary_key=True),
    Column("at", Float, nullable=False),
    Index("seen_event_at", "at"),
)
"""Slack event keys a bot replica has claimed: the first claim of a key wins, on any replica."""

thread_binding: Final = Table(
    "thread_binding",
    METADATA,
    Column("place", Text, primary_key=True),
    Column("task_id", Text, nullable=False),
)
"""``team/channel/thread_ts`` -> the task that thread belongs to."""

transcript: Final = Table(
    "transcript",
    METADATA,
    Column("task_key", Text, nullable=False),
    Column("position", Integer, nullable=False),
    Column("content", Text, nullable=False),
    Column("idempotency_key", Text, nullable=True),
    PrimaryKeyConstraint("task_key", "position", name="transcript_pkey"),
    UniqueConstraint("task_key", "idempotency_key", name="transcript_once"),
)
"""Append-only transcripts: one row per message, positions from 1; one row per idempotency key."""
