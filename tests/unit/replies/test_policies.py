"""The hook engine's refusals and asks, worded in the room (issue 25)."""

from __future__ import annotations

from harness import replies
from harness.hooks import OPERATIONS


def test_an_approval_names_the_tool_and_the_rule_that_decided():
    rule = replies.approval_rule(2, "deploy*")
    assert rule == "approvals rule 2 (deploy*)"
    assert replies.approval_needed("deploy", rule) == (
        "deploy needs a person's approval (approvals rule 2 (deploy*))"
    )
    safe = replies.approval_default("safe")
    assert replies.approval_denied("shell", "", safe) == "shell is not allowed (approvals safe)"
    assert replies.approval_denied("shell", "no shells", safe) == "no shells (approvals safe)"


def test_a_policy_refusal_names_its_rule_and_never_an_operation():
    assert replies.policy_denied("", "rule 3") == "denied by policy (policy rule 3)"
    assert (
        replies.policy_unmatched(tool="shell") == "tool 'shell' is not allowed by any policy rule"
    )
    assert replies.policy_unmatched(command="/task status").startswith("/task status is not")
    assert not any(op in replies.policy_unmatched() for op in OPERATIONS)


def test_an_operation_nested_too_deep_is_stopped_without_naming_one():
    said = replies.nested_too_deep(17, 16)
    assert said.startswith("operations nested 17 deep (the most is 16): ")
    assert not any(op in said for op in OPERATIONS)
