"""Default bodies: what each operation does when no executor replaces it.

One module per operation family, the catalogue's, so named like
:mod:`harness.hooks.contexts` (task, llm, tool, plan, help, channel, compaction,
persistence, activity, skill), and one table that registers them all,
:func:`register_defaults`. Bodies compute; the
task workflow applies what they return. What they need arrives as one
:class:`BodyDeps`; :class:`BodyRuntime` builds it from a worker's settings. Bodies
import nothing of :mod:`harness.temporal` (an import-linter contract holds it); the
manager that runs them is assembled by :func:`harness.plugins.build_manager`.
"""

from __future__ import annotations

from harness.bodies.defaults import register_defaults
from harness.bodies.deps import DEFAULT_KEEP_LAST, BodyDeps, Resources
from harness.bodies.runtime import BodyRuntime
from harness.bodies.tool import catalogue_of

__all__ = [
    "DEFAULT_KEEP_LAST",
    "BodyDeps",
    "BodyRuntime",
    "Resources",
    "catalogue_of",
    "register_defaults",
]
