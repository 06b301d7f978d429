"""Typed command effects (issue 25, point 5): each kind holds exactly its typed fields, a wrong
value is refused where the effect is made, naming the field, and the first release's flat
``{kind, value, user_id, subtask, amount}`` still reads (histories, old executors) while only
the typed shape is written."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from harness.domain import (
    EFFECTS,
    CancelTask,
    CommandResult,
    FinishTask,
    GrantRole,
    LoadSkill,
    SetApprovals,
    SetBudget,
    SetEffort,
    SetMidTurn,
    SetModel,
    SpawnSubtask,
    StopTurn,
    SubtaskSpec,
    UnloadSkill,
)

SPEC = {"title": "research it", "prompt": "research it", "requested_by": "U1", "task_id": ""}


def flat(kind: str, value: str = "", user_id: str = "", subtask=None, amount: float = 0.0):
    """An effect as the first release wrote it: every field, defaults included."""
    return {"kind": kind, "value": value, "user_id": user_id, "subtask": subtask, "amount": amount}


def result(*effects) -> CommandResult:
    return CommandResult.model_validate_json(json.dumps({"reply": "r", "effects": list(effects)}))


def problems(error: pytest.ExceptionInfo[ValidationError]) -> list[tuple[str, str]]:
    return [(".".join(map(str, e["loc"])), e["msg"]) for e in error.value.errors()]


@pytest.mark.parametrize(
    ("old", "typed"),
    [
        (flat("set_model", "gpt-x"), SetModel(model="gpt-x")),
        (flat("set_effort", "high"), SetEffort(effort="high")),
        (
            flat("spawn_subtask", user_id="U1", subtask=SPEC),
            SpawnSubtask(subtask=SubtaskSpec.model_validate(SPEC), user_id="U1"),
        ),
        (flat("grant_role", "collaborator", "U2"), GrantRole(user_id="U2", role="collaborator")),
        (flat("load_skill", "arithmetic"), LoadSkill(skill="arithmetic")),
        (flat("unload_skill", "arithmetic"), UnloadSkill(skill="arithmetic")),
        (flat("stop_turn", user_id="U1"), StopTurn(user_id="U1")),
        (flat("stop_turn", "idle", "U1"), StopTurn(user_id="U1", idle=True)),
        (flat("finish", "shipped", "U1"), FinishTask(summary="shipped", user_id="U1")),
        (flat("cancel", user_id="U1"), CancelTask(user_id="U1")),
        (flat("set_mid_turn", "queue", "U1"), SetMidTurn(mid_turn="queue", user_id="U1")),
        (flat("set_approvals", "strict", "U1"), SetApprovals(approvals="strict", user_id="U1")),
        (
            flat("set_budget", "tokens", "U1", amount=20_000),
            SetBudget(limit="tokens", amount=20_000, user_id="U1"),
        ),
    ],
    ids=lambda value: (
        value["kind"] + (f"-{value['value']}" if value["value"] else "")
        if isinstance(value, dict)
        else ""
    ),
)
def test_a_first_release_effect_reads_as_its_typed_kind(old, typed):
    [effect] = result(old).effects
    assert effect == typed
    written = json.loads(CommandResult(reply="r", effects=(effect,)).model_dump_json())
    assert "value" not in written["effects"][0]  # only the typed shape is written
    assert result(*written["effects"]).effects == (typed,)


def test_every_kind_of_the_first_release_has_its_class():
    kinds = [effect.model_fields["kind"].default for effect in EFFECTS]
    assert kinds == [
        "set_model",
        "set_effort",
        "spawn_subtask",
        "grant_role",
        "load_skill",
        "unload_skill",
        "stop_turn",
        "finish",
        "cancel",
        "set_mid_turn",
        "set_approvals",
        "set_budget",
    ]


def test_the_oldest_flat_shape_without_amount_reads_too():
    # slash_command.1.json and sub_task.1.json were recorded before ``amount`` existed.
    old = {"kind": "set_effort", "value": "high", "user_id": "", "subtask": None}
    assert result(old).effects == (SetEffort(effort="high"),)


def test_an_effort_outside_the_enum_is_refused_where_the_effect_is_made():
    with pytest.raises(ValidationError) as made:
        SetEffort(effort="extreme")
    assert problems(made) == [("effort", "Input should be 'low', 'medium' or 'high'")]
    with pytest.raises(ValidationError) as read:
        result({"kind": "set_effort", "effort": "extreme"})
    assert problems(read) == [
        ("effects.0.set_effort.effort", "Input should be 'low', 'medium' or 'high'")
    ]
    with pytest.raises(ValidationError) as old:
        result(flat("set_effort", "extreme"))  # the flat shape is held to the same types
    assert problems(old)[0][0] == "effects.0.set_effort.effort"


@pytest.mark.parametrize(
    ("effect", "where"),
    [
        ({"kind": "set_mid_turn", "mid_turn": "shout"}, "effects.0.set_mid_turn.mid_turn"),
        ({"kind": "set_approvals", "approvals": "never"}, "effects.0.set_approvals.approvals"),
        ({"kind": "set_budget", "limit": "minutes", "amount": 5}, "effects.0.set_budget.limit"),
        ({"kind": "set_budget", "limit": "cost", "amount": -1}, "effects.0.set_budget.amount"),
        ({"kind": "grant_role", "user_id": "U2", "role": "owner"}, "effects.0.grant_role.role"),
        ({"kind": "grant_role", "role": "watcher"}, "effects.0.grant_role.user_id"),
        ({"kind": "set_model", "model": ""}, "effects.0.set_model.model"),
        ({"kind": "spawn_subtask"}, "effects.0.spawn_subtask.subtask"),
        ({"kind": "set_model", "model": "m", "value": "m2"}, "effects.0.set_model.value"),
        ({"kind": "stop_turn", "surprise": 1}, "effects.0.stop_turn.surprise"),
        (flat("set_model", "m", amount=3), "effects.0.set_model.amount"),
        (flat("stop_turn", "later"), "effects.0.stop_turn.value"),
        (flat("finish", "done", subtask=SPEC), "effects.0.finish.subtask"),
        ({"kind": "set_everything"}, "effects.0"),
        ({"model": "m"}, "effects.0"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_wrong_effect_is_refused_naming_its_field(effect, where):
    with pytest.raises(ValidationError) as refused:
        result(effect)
    assert [loc for loc, _ in problems(refused)] == [where]


def test_a_budget_counts_tokens_and_tool_calls_whole_and_cost_in_cents():
    assert SetBudget(limit="cost", amount=2.5).amount == 2.5
    assert SetBudget(limit="tool_calls", amount=0).amount == 0  # 0: no limit
    with pytest.raises(ValidationError) as refused:
        SetBudget(limit="tokens", amount=1.5)
    assert "amount: tokens are counted whole, not 1.5" in str(refused.value)
    with pytest.raises(ValidationError):
        SetBudget(limit="cost", amount=float("inf"))


def test_effects_are_frozen_values():
    effect = SetModel(model="m")
    with pytest.raises(ValidationError):
        effect.model = "other"  # type: ignore[misc]
    assert effect.model_copy(update={"model": "other"}) != effect
