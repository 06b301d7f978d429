"""Redaction: tokens and keys masked wherever they would leave the process.

One room because every boundary uses it: the hooks (contexts before an executor sees
them, outputs, audit, spans, remote causes), the bot (replies, recordings), the logs and
the Temporal client. It imports nothing of the harness but the error tree's root:
:mod:`.patterns` says what secrets look like, :mod:`.json_scan` proves a value clean
from its JSON bytes, :mod:`.redactor` masks what is not, and :mod:`.errors` is what it
raises when it cannot. ``harness.hooks.Redactor``
is the same class (DESIGN.md's public surface).
"""

from __future__ import annotations

from harness.redaction.errors import RedactionError
from harness.redaction.redactor import DEFAULT_FIELDS, DEFAULT_PATTERNS, MASK, Redactor

__all__ = ["DEFAULT_FIELDS", "DEFAULT_PATTERNS", "MASK", "RedactionError", "Redactor"]
