"""What a slash command asks its task to change: one typed value per kind of change.

A command's body makes them (:class:`~harness.domain.CommandResult`'s ``effects``) and the
task workflow applies them (:mod:`harness.temporal.workflow.effects`) without checking them again:
each carries exactly its own typed fields, validated where it is made (a body, or a remote
executor's reply). :data:`CommandEffect` is their union, told apart by ``kind``. The first
release flattened every value into ``{kind, value, user_id, subtask, amount}``; recorded
histories and old executors still send that, so :func:`upgrade` reads it into the typed
shape on input. Only the typed shape is ever written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BeforeValidator, ConfigDict, Field, model_validator

from harness.domain.frozen import Frozen
from harness.domain.plans import SubtaskSpec
from harness.domain.progress import ApprovalDefault, BudgetLimit, MidTurn
from harness.domain.task import Effort

GrantableRole = Literal["watcher", "collaborator"]
"""The roles (:class:`~harness.domain.Role` values) ``/invite`` gives: the owner keeps theirs."""


def _kind_required(schema: dict[str, Any]) -> None:
    # ``kind`` has a default so that bodies need not repeat it, but every effect written
    # carries it and none is read without it: the published schema says so.
    schema["required"] = ["kind", *(name for name in schema.get("required", ()) if name != "kind")]


class Effect(Frozen):
    """Every effect: frozen, closed (an unknown field is an error), tagged by ``kind``."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        json_schema_extra=_kind_required,
        use_attribute_docstrings=True,  # the published schema says what each field is
    )


class SetModel(Effect):
    """Use ``model`` (one of the worker's configured models, as ``/model`` found it)."""

    kind: Literal["set_model"] = "set_model"
    model: str = Field(min_length=1)


class SetEffort(Effect):
    """Think as hard as ``effort`` says from the next model call on."""

    kind: Literal["set_effort"] = "set_effort"
    effort: Effort


class SpawnSubtask(Effect):
    """Start a child task doing ``subtask``; the workflow returns it with the child's id."""

    kind: Literal["spawn_subtask"] = "spawn_subtask"
    subtask: SubtaskSpec
    user_id: str = ""
    """Who asked for it."""


class GrantRole(Effect):
    """Give the person ``user_id`` the role ``role`` in the task."""

    kind: Literal["grant_role"] = "grant_role"
    user_id: str = Field(min_length=1)
    role: GrantableRole


class LoadSkill(Effect):
    """Load the skill named ``skill`` into the task's context (the task says if it is missing)."""

    kind: Literal["load_skill"] = "load_skill"
    skill: str = Field(min_length=1)


class UnloadSkill(Effect):
    """Take the skill named ``skill`` out of the task's context."""

    kind: Literal["unload_skill"] = "unload_skill"
    skill: str = Field(min_length=1)


class StopTurn(Effect):
    """Cancel the turn running now, in ``user_id``'s name; the task waits for the next message
    (a sub-task's turn is its last: it ends)."""

    kind: Literal["stop_turn"] = "stop_turn"
    user_id: str = ""
    """Who stopped it (empty: the command's sender)."""
    idle: bool = False
    """Set by the workflow as it applies the effect: no turn was running, nothing stopped."""
    subtask_id: str = ""
    """The sub-task whose turn to stop (``/task stop sub-N``); ``""``: this task's own."""


class FinishTask(Effect):
    """End the task as succeeded with ``summary`` (empty: "finished by" whoever asked)."""

    kind: Literal["finish"] = "finish"
    summary: str = ""
    user_id: str = ""
    """Who ended it (empty: the command's sender)."""


class CancelTask(Effect):
    """End the task as cancelled, stopping what runs; ``summary`` is the reason, if given."""

    kind: Literal["cancel"] = "cancel"
    summary: str = ""
    user_id: str = ""
    """Who ended it (empty: the command's sender)."""


class SetMidTurn(Effect):
    """What a message arriving while a turn runs does, from now on."""

    kind: Literal["set_mid_turn"] = "set_mid_turn"
    mid_turn: MidTurn
    user_id: str = ""
    """Who changed it."""


class SetApprovals(Effect):
    """The task's own approval default, in place of the worker's."""

    kind: Literal["set_approvals"] = "set_approvals"
    approvals: ApprovalDefault
    user_id: str = ""
    """Who changed it."""


class SetBudget(Effect):
    """Set the budget's ``limit`` to ``amount`` (0: no limit); tokens and tool calls are counts."""

    kind: Literal["set_budget"] = "set_budget"
    limit: BudgetLimit
    amount: float = Field(ge=0, allow_inf_nan=False)
    user_id: str = ""
    """Who changed it."""

    @model_validator(mode="after")
    def _whole_counts(self) -> SetBudget:
        if self.limit != "cost" and self.amount != int(self.amount):
            raise ValueError(f"amount: {self.limit} are counted whole, not {self.amount:g}")
        return self


EFFECTS: Final = (
    SetModel,
    SetEffort,
    SpawnSubtask,
    GrantRole,
    LoadSkill,
    UnloadSkill,
    StopTurn,
    FinishTask,
    CancelTask,
    SetMidTurn,
    SetApprovals,
    SetBudget,
)
"""Every kind of effect, in the order the first release listed their kinds."""

_BY_KIND: Final[dict[str, type[Effect]]] = {
    effect.model_fields["kind"].default: effect for effect in EFFECTS
}

_FLAT_VALUE: Final[dict[str, str]] = {
    "set_model": "model",
    "set_effort": "effort",
    "grant_role": "role",
    "load_skill": "skill",
    "unload_skill": "skill",
    "finish": "summary",
    "cancel": "summary",
    "set_mid_turn": "mid_turn",
    "set_approvals": "approvals",
    "set_budget": "limit",
}
"""Which typed field a first-release effect's ``value`` held, by kind."""

_FLAT_DEFAULTS: Final[dict[str, object]] = {"user_id": "", "subtask": None, "amount": 0.0}
"""The first release's defaults: dropped where the typed effect has no such field."""

IDLE: Final = "idle"
"""The first release's ``value`` of a ``stop_turn`` applied when no turn was running."""


def upgrade(data: object) -> object:
    """The typed shape of a first-release effect (one with a ``value``); anything else as given.

    A flat field the typed effect has no place for is kept unless it holds the first
    release's default, so validation refuses it by name rather than dropping a value; so
    is a ``value`` beside the typed field it would fill (a mixed shape is not guessed at).

    Args:
        data: an effect as it arrived (a history's payload, a remote executor's reply).

    Returns:
        What the union then validates.
    """
    if not isinstance(data, Mapping) or "value" not in data:
        return data
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _BY_KIND:
        return data  # the union names the unknown kind
    effect = _BY_KIND[kind]
    typed = dict(data)
    value = typed.pop("value")
    target = "idle" if kind == "stop_turn" else _FLAT_VALUE.get(kind)
    if target is not None and target not in typed and (target != "idle" or value in ("", IDLE)):
        typed[target] = value == IDLE if target == "idle" else value
    elif target is not None or value != "":
        typed["value"] = value  # no place for it, or a mixed shape: refused by name
    for name, default in _FLAT_DEFAULTS.items():
        if name in typed and name not in effect.model_fields and typed[name] == default:
            del typed[name]
    return typed


CommandEffect = Annotated[
    SetModel
    | SetEffort
    | SpawnSubtask
    | GrantRole
    | LoadSkill
    | UnloadSkill
    | StopTurn
    | FinishTask
    | CancelTask
    | SetMidTurn
    | SetApprovals
    | SetBudget,
    Field(discriminator="kind"),
    BeforeValidator(upgrade),
]
"""One effect of a command: whichever of :data:`EFFECTS` its ``kind`` names."""
