"""Worker versioning: which Temporal worker deployment and build a worker polls as.

Set ``HARNESS_DEPLOYMENT_NAME`` and each worker polls as ``<name>.<build id>``;
Temporal sends new workflows to the deployment's *current* version (an operator, or
the deploy pipeline, makes a version current: docs/deployment.md). Each workflow type
declares how its runs move between builds (``versioning_behavior`` on its
``workflow.defn``): a task lives for days and moves to the new build at its next
workflow task (``AUTO_UPGRADE``), so a change to its code must replay old histories
(``workflow.patched``, the replay test); a request workflow lives for one activity and
stays on the build that started it (``PINNED``). Unset, versioning is off: ``make run``
and a single worker need no deployment step. What the settings mean is
:mod:`harness.config`'s; the worker itself is :mod:`harness.temporal.worker`'s.
"""

from __future__ import annotations

import importlib.metadata
from typing import Final

from temporalio.common import WorkerDeploymentVersion
from temporalio.worker import WorkerDeploymentConfig

from harness.config import Settings

DISTRIBUTION: Final = "tiny-harness"
"""The installed package whose version is the build id when ``HARNESS_BUILD_ID`` is unset."""


def build_id(settings: Settings) -> str:
    """``HARNESS_BUILD_ID``, else the installed package's version."""
    return settings.build_id or importlib.metadata.version(DISTRIBUTION)


def deployment_config(settings: Settings) -> WorkerDeploymentConfig | None:
    """The ``Worker``'s ``deployment_config``: ``None`` (versioning off) unless a name is set.

    The default behaviour stays unspecified on purpose: the SDK then refuses to start a
    versioned worker with a workflow type that did not choose its own.
    """
    if not settings.deployment_name:
        return None
    version = WorkerDeploymentVersion(deployment_name=settings.deployment_name,
                                      build_id=build_id(settings))  # fmt: skip
    return WorkerDeploymentConfig(version=version, use_worker_versioning=True)


def describe(settings: Settings) -> str:
    """What the worker's start-up line says about versioning."""
    config = deployment_config(settings)
    if config is None:
        return "worker versioning off (no HARNESS_DEPLOYMENT_NAME)"
    return f"worker deployment version {config.version.to_canonical_string()}"
