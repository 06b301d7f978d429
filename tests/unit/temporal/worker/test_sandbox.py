"""The worker's workflow runner: which modules a run takes from the worker, and when the
serialization context is answered outside the sandbox (issue 27).

A new run's fresh imports are checked on a real worker in
``tests/integration/temporal/worker/test_worker.py``; here, the pure parts.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Sequence

from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec, SerializationContext, WithSerializationContext
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from harness.storage import PayloadStore, database_url
from harness.temporal.codec import data_converter
from harness.temporal.keys import new_key, parse_keys
from harness.temporal.worker.entry import WORKFLOWS
from harness.temporal.worker.sandbox import (
    DETERMINISTIC,
    WORKFLOW_PACKAGE,
    context_free,
    passthrough,
    workflow_runner,
)


class ContextCodec(PayloadCodec, WithSerializationContext):
    """A codec that takes the context it is given (as one keyed per workflow would)."""

    def __init__(self, context: SerializationContext | None = None) -> None:
        self.context = context

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return list(payloads)

    def with_context(self, context: SerializationContext) -> ContextCodec:
        return ContextCodec(context)


def test_the_harness_converter_is_context_free_with_and_without_offload(tmp_path):
    keys = parse_keys(new_key())
    store = PayloadStore(database_url("", tmp_path / "payloads.sqlite3"))  # never opened here
    assert context_free(data_converter(keys))
    assert context_free(data_converter(keys, store))


def test_a_converter_whose_codec_takes_a_context_gets_the_sdk_contexts():
    aware = dataclasses.replace(data_converter(parse_keys(new_key())), payload_codec=ContextCodec())
    assert not context_free(aware)
    assert not workflow_runner(WORKFLOWS, aware).converter_context_free
    assert workflow_runner(WORKFLOWS, data_converter(parse_keys(new_key()))).converter_context_free


def test_no_workflow_module_nor_a_package_above_one_is_passed_through():
    names = passthrough(WORKFLOWS)
    own = {workflow.__module__ for workflow in WORKFLOWS}
    above = {"harness", "harness.temporal", WORKFLOW_PACKAGE}
    # The SDK passes a listed name's children through too: any of these would take the
    # workflows' own modules out of the sandbox's per-run load.
    assert not (own | above) & names
    assert not any(module.startswith(f"{name}.") for name in names for module in own)
    assert {*DETERMINISTIC, f"{WORKFLOW_PACKAGE}.patches", f"{WORKFLOW_PACKAGE}.retries"} <= names
    for name in names:
        importlib.import_module(name)  # each is a module of ours, not a guess


def test_the_runner_keeps_the_sdk_restrictions_and_adds_only_the_passthrough():
    runner = workflow_runner(WORKFLOWS, data_converter(parse_keys(new_key())))
    assert isinstance(runner, SandboxedWorkflowRunner)
    default = SandboxRestrictions.default
    assert runner.restrictions.invalid_module_members == default.invalid_module_members
    assert runner.restrictions.invalid_modules == default.invalid_modules
    assert not runner.restrictions.passthrough_all_modules
    added = runner.restrictions.passthrough_modules - default.passthrough_modules
    assert added == passthrough(WORKFLOWS)
