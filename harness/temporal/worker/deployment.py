"""Worker versioning: which Temporal worker deployment and build a worker polls as.

Set ``HARNESS_DEPLOYMENT_NAME`` and each worker polls as ``<name>.<build id>``;
Temporal sends new workflows to the deployment's *current* version (an operator, or
the deploy pipeline, makes a version current: docs/deployment.md). Runs move to the
current build at their next workflow task (``AUTO_UPGRADE``, :data:`BEHAVIOUR`): a task
lives for days, and pinned it would hold its old build's workers as long, so a change
to workflow code must replay old histories (``workflow.patched``, the replay test).
Unset, versioning is off: ``make run`` and a single worker need no deployment step.
What the settings mean is :mod:`harness.config`'s; the worker is
:mod:`harness.temporal.worker`'s.
"""

from __future__ import annotations

import importlib.metadata
from typing import Final

from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.worker import WorkerDeploymentConfig

from harness.config import Settings

DISTRIBUTION: Final = "tiny-harness"
"""The installed package whose version is the build id when ``HARNESS_BUILD_ID`` is unset."""

BEHAVIOUR: Final = VersioningBehavior.AUTO_UPGRADE
"""How every workflow type moves between builds. The worker sets it, not each
``workflow.defn``: a workflow-level behaviour makes Temporal refuse the workflow's tasks
from an unversioned worker ("versioning behavior cannot be specified without deployment
options"), and versioning is off by default. A request workflow lives for one activity
and could be pinned; it upgrades too, so one rule covers both (both replay old histories)."""


def build_id(settings: Settings) -> str:
    """``HARNESS_BUILD_ID``, else the installed package's version."""
    return settings.build_id or importlib.metadata.version(DISTRIBUTION)


def deployment_config(settings: Settings) -> WorkerDeploymentConfig | None:
    """The ``Worker``'s ``deployment_config``: ``None`` (versioning off) unless a name is set."""
    if not settings.deployment_name:
        return None
    version = WorkerDeploymentVersion(
        deployment_name=settings.deployment_name, build_id=build_id(settings)
    )
    return WorkerDeploymentConfig(
        version=version, use_worker_versioning=True, default_versioning_behavior=BEHAVIOUR
    )


def describe(settings: Settings) -> str:
    """What the worker's start-up line says about versioning."""
    config = deployment_config(settings)
    if config is None:
        return "worker versioning off (no HARNESS_DEPLOYMENT_NAME)"
    return f"worker deployment version {config.version.to_canonical_string()}"
