from __future__ import annotations

import pickle

import pytest

from harness.errors import HarnessError
from harness.hooks import (
    HookAbort,
    HookError,
    HookTransportError,
    HookValidationError,
    UnknownHookPointError,
)


def test_hierarchy_has_one_root():
    for cls in (HookAbort, HookTransportError, HookValidationError, UnknownHookPointError):
        assert issubclass(cls, HookError)
        assert issubclass(cls, HarnessError)


def test_abort_message_names_where_and_who():
    abort = HookAbort("not allowed", refusal=True, point="tool.invoked.pre", executor="policy")
    assert str(abort) == "refused at tool.invoked.pre by policy: not allowed"
    assert str(HookAbort("broken")) == "aborted: broken"


def test_transport_error_message_carries_endpoint_and_cause():
    err = HookTransportError(point="tool.invoked.pre", endpoint="http://h/rpc", cause="timeout")
    assert "http://h/rpc" in str(err) and "tool.invoked.pre" in str(err) and "timeout" in str(err)


@pytest.mark.parametrize(
    "error",
    [
        HookAbort("no", refusal=True, point="p.pre", executor="e"),
        HookTransportError(point="p.pre", endpoint="x", cause="y"),
        HookValidationError(point="p.pre", executor="e", detail="d"),
        UnknownHookPointError(name="bad"),
    ],
    ids=["abort", "transport", "validation", "unknown"],
)
def test_errors_survive_pickling_with_their_fields(error):
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == str(error)
    assert vars(again) == vars(error)
