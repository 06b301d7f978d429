"""The worker's workflow runner: Temporal's sandbox, minus two costs that buy nothing here.

Every workflow runs in :class:`~temporalio.worker.workflow_sandbox.SandboxedWorkflowRunner`
with the SDK's default restrictions (its determinism checks stay on). Two things of the
SDK's default are waste for the harness, found under ``bench/load.py`` (issue 27):

- A new run re-imports in the sandbox every module it does not pass through. Workflow code
  imports its helpers inside ``imports_passed_through``, but ``from harness import
  replies`` reaches ``harness.replies`` through the sandbox's own copy of the ``harness``
  package, so the wording modules were compiled and run again for every new workflow (a
  request workflow per new thread, a task workflow per task): about half a new run's
  cost. :data:`DETERMINISTIC` and the workflow package's helpers are passed through by
  name; each workflow's own module (and the packages it sits in) is still loaded afresh
  per run, so the sandbox checks what it calls.
- For every payload it encodes or decodes, the SDK enters the sandbox to ask the workflow
  for a serialization context (and a store context), then gives both to the data converter.
  The harness's converter ignores both (pydantic values, the codec of
  :mod:`harness.temporal.codec`, no external storage), so when ``converter.with_context``
  gives back the converter itself, :class:`ContextFreeInstance` answers without entering
  the sandbox. A converter that does use a context gets the SDK's answers, as before.

What this is not: the workflows (:mod:`harness.temporal.workflow`) or the worker that runs
them (:mod:`harness.temporal.worker.entry`).
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from collections.abc import Iterable, Sequence
from typing import Final, final

import temporalio.workflow
from temporalio.bridge.proto.workflow_activation import WorkflowActivation
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.converter import (
    DataConverter,
    SerializationContext,
    StorageDriverStoreContext,
    StorageDriverWorkflowInfo,
    WorkflowSerializationContext,
)
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

WORKFLOW_PACKAGE: Final = "harness.temporal.workflow"
"""Workflow code: its modules are deterministic by that package's rule (no I/O, no hooks)."""
DETERMINISTIC: Final = ("harness.domain", "harness.replies")
"""Packages of plain values and wording that workflow code uses beside its own package."""
_PROBE: Final = WorkflowSerializationContext(namespace="-", workflow_id="-")


def passthrough(workflows: Iterable[type]) -> frozenset[str]:
    """The modules of ours the sandbox takes from the worker instead of loading per run.

    :data:`DETERMINISTIC` and every module of :data:`WORKFLOW_PACKAGE` but those that define
    ``workflows`` (the SDK passes a listed name's children through too, so no package a
    workflow's module sits in is listed).
    """
    own = {workflow.__module__ for workflow in workflows}
    package = importlib.import_module(WORKFLOW_PACKAGE)
    helpers = {
        found.name
        for found in pkgutil.iter_modules(package.__path__, f"{WORKFLOW_PACKAGE}.")
        if found.name not in own
    }
    return frozenset(DETERMINISTIC) | helpers


def context_free(converter: DataConverter) -> bool:
    """Whether ``converter`` converts the same in every context and stores nothing outside."""
    return converter.external_storage is None and converter.with_context(_PROBE) is converter


@final
@dataclasses.dataclass(frozen=True)
class HarnessWorkflowRunner(SandboxedWorkflowRunner):
    """The sandbox with our deterministic modules passed through; context-free instances
    when :attr:`converter_context_free` says the worker's converter takes no context."""

    converter_context_free: bool = False

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        """A sandboxed instance, wrapped by :class:`ContextFreeInstance` when it may be."""
        instance = super().create_instance(det)
        return ContextFreeInstance(instance) if self.converter_context_free else instance


@final
class ContextFreeInstance(WorkflowInstance):
    """A sandboxed workflow instance whose serialization and store contexts are answered
    outside the sandbox: none, and the workflow itself, which a context-free converter
    (:func:`context_free`) never reads. Everything else is the sandboxed instance's."""

    __slots__ = ("_sandboxed",)

    def __init__(self, sandboxed: WorkflowInstance) -> None:
        super().__init__()
        self._sandboxed = sandboxed

    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        """The activation, run in the sandbox."""
        return self._sandboxed.activate(act)

    def get_serialization_context(self, command_info: object) -> SerializationContext | None:
        """None: the worker's converter, which is the same in every context."""
        return None

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        """The workflow itself (the converter stores nothing outside history)."""
        info = self._sandboxed.get_info()
        return StorageDriverStoreContext(
            target=StorageDriverWorkflowInfo(
                id=info.workflow_id,
                run_id=info.run_id,
                type=info.workflow_type,
                namespace=info.namespace,
            )
        )

    def get_info(self) -> temporalio.workflow.Info:
        """The sandboxed instance's info."""
        return self._sandboxed.get_info()

    def get_thread_id(self) -> int | None:
        """The thread the sandboxed instance runs on (the SDK's deadlock detection)."""
        return self._sandboxed.get_thread_id()


def workflow_runner(workflows: Sequence[type], converter: DataConverter) -> HarnessWorkflowRunner:
    """The worker's runner for ``workflows``, whose payloads ``converter`` converts."""
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*passthrough(workflows))
    return HarnessWorkflowRunner(
        restrictions=restrictions, converter_context_free=context_free(converter)
    )
