"""Collect what earlier tests left behind before a test that reads the log for errors.

A task an earlier test left pending (a store it never closed) is logged by asyncio as
"Task was destroyed but it is pending!" whenever the garbage collector meets it, which can
be inside a later test's log window: with the suite in several processes by file
(``make test``), which test that is depends on the order. A test that asserts its own log
has no ERROR calls :func:`collect_earlier_leaks` first, so what it reads is its own.
"""

from __future__ import annotations

import gc


def collect_earlier_leaks() -> None:
    """Run the garbage collector now (what it logs belongs to the tests before)."""
    gc.collect()
