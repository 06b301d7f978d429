"""Default bodies: what each operation does when no executor replaces it.

One module per operation family, the catalogue's, so named like
:mod:`harness.hooks.contexts` (task, llm, tool, plan, help, channel, compaction,
persistence, activity, skill), each a :class:`~harness.bodies.marker.Bodies` class whose
methods are marked ``@body(<Op>Context)``. Every module here is imported, found on disk
(a new family needs no import list), and then every catalogue row that says ``body``
must have one or the import fails (:func:`~harness.bodies.marker.check_bodies`);
:func:`register_defaults` registers them. Bodies compute; the
task workflow applies what they return. What they need arrives as one
:class:`BodyDeps`; :class:`BodyRuntime` builds it from a worker's settings. Bodies
import nothing of :mod:`harness.temporal` (an import-linter contract holds it); the
manager that runs them is assembled by :func:`harness.plugins.build_manager`.
"""

from __future__ import annotations

import importlib
import pkgutil

from harness.bodies.defaults import register_defaults
from harness.bodies.deps import DEFAULT_KEEP_LAST, BodyDeps, Resources
from harness.bodies.marker import Bodies, Wiring, body, check_bodies
from harness.bodies.runtime import BodyRuntime
from harness.bodies.tool import catalogue_of

# Every family module, found on disk; then a row without its body fails the import.
for _family in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_family.name}")
check_bodies()

__all__ = [
    "DEFAULT_KEEP_LAST",
    "Bodies",
    "BodyDeps",
    "BodyRuntime",
    "Resources",
    "Wiring",
    "body",
    "catalogue_of",
    "register_defaults",
]
