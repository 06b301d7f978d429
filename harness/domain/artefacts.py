"""A stored artefact (a transcript, an attachment) as a value: key, content, version.

A plain frozen value; the stores are :mod:`harness.storage.artefacts`, the hook contexts of
reads and writes :mod:`harness.hooks.contexts.persistence`.
"""

from __future__ import annotations

from harness.domain.frozen import Frozen


class Artefact(Frozen):
    """A stored artefact: its key, its content and a version that grows with each write."""

    key: str
    content: str
    version: int = 0
