"""A peer's reply read strictly: as its JSON says, never coerced, and refused by field.

A remote executor is another party, so what it answers is hostile input: ``"0"`` is not
an integer, ``"false"`` not a boolean, whatever a lenient parser would make of them.
Every reply is validated in pydantic's strict mode *in JSON mode*, where a JSON array
still fills a tuple or a set and an ISO string a datetime (strict validation of the
decoded Python objects would refuse both); the models themselves stay lenient for the
harness's own use. Numbers are read as JSON Schema reads them, so the published schemas
and the harness agree: a number with a zero fraction (``1.0``) is an integer. The
envelopes read with it are :mod:`.wire`'s and :mod:`.reply`'s; this module knows no hook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Final, NoReturn, TypeVar, Union

import pydantic_core
from pydantic import Discriminator, Tag, TypeAdapter, ValidationError

from harness.errors import ServiceError

T = TypeVar("T")

ROOT: Final = "<root>"
"""The path of a problem with the reply as a whole."""


class ReplyError(ServiceError):
    """A reply that is JSON but does not conform to its model; names each field that does not.

    Raised inside :func:`~harness.hooks.remote.wire.map_transport_errors`, which turns it
    into a ``HookTransportError`` whose cause is this message.

    Args:
        title: what the reply should have been (``RpcResponse[ToolInvokedContext]``).
        problems: ``(path, what is wrong)`` per problem; the path is dotted
            (``result.attempt``), :data:`ROOT` for the reply as a whole. The peer's
            values are left out: they are its data, and may be secrets.
    """

    def __init__(self, *, title: str, problems: Sequence[tuple[str, str]]) -> None:
        self.title = title
        self.problems = tuple(problems)
        detail = "; ".join(f"{path}: {what}" for path, what in self.problems)
        super().__init__(f"reply does not conform ({title}): {detail}")

    @property
    def paths(self) -> tuple[str, ...]:
        """The fields named, in order."""
        return tuple(path for path, _ in self.problems)

    def within(self, *prefix: str) -> ReplyError:
        """The same problems found inside ``prefix`` of a larger reply (``error.data``)."""
        where = ".".join(prefix)
        return ReplyError(
            title=self.title,
            problems=[(where if p == ROOT else f"{where}.{p}", w) for p, w in self.problems],
        )


def one_of(answer: str, answered: Any, other: str, othered: Any) -> Any:  # noqa: ANN401  # a type
    """Two reply shapes, told apart by the member a reply carries: ``answer`` (null
    included) or a non-null ``other``, exactly one of them.

    Each shape forbids the other's member, so the union says the rule in its published
    schema (a ``oneOf``); the tag only picks the shape whose errors are reported, and a
    reply with both or neither is refused as such.

    Args:
        answer: the member of the ordinary answer (``result``, ``context``).
        answered: the shape carrying it.
        other: the member of the other answer (``error``, ``abort``).
        othered: the shape carrying that.

    Returns:
        The annotated union, for a ``TypeAdapter``.
    """

    def tag(value: object) -> str | None:
        if not isinstance(value, dict):
            return answer  # refused by that shape as not an object
        has_other = value.get(other) is not None
        if has_other == (answer in value):
            return None
        return other if has_other else answer

    said = f"a reply carries exactly one of '{answer}' and '{other}'"
    told = Discriminator(tag, custom_error_type="reply_shape", custom_error_message=said)
    # Union[...] (not |): the members are values here, as pydantic's tagged unions take them.
    choices = Union[Annotated[answered, Tag(answer)], Annotated[othered, Tag(other)]]  # noqa: UP007
    return Annotated[choices, told]


def read_strict(adapter: TypeAdapter[T], data: bytes | str, *, title: str, tagged: bool) -> T:
    """Validate the JSON text ``data`` as ``adapter``'s type, strictly.

    Args:
        adapter: the reply's type.
        data: the reply as received.
        title: how a refusal names the type.
        tagged: the type is a tagged union whose tag (the first step of every error's
            path) is ours, not the peer's, so it is left out of the paths named.

    Raises:
        ValidationError: ``data`` is not JSON (the error boundary says so as such).
        ReplyError: it is JSON that does not conform.
    """
    try:
        return adapter.validate_json(data, strict=True)
    except ValidationError as error:
        if _is_syntax(error) or not any(_whole_float(e["input"]) for e in error.errors()):
            _refuse(error, title, tagged)
    try:  # a 1.0 was refused somewhere: read it as the integer it is, and validate again
        normalised = pydantic_core.to_json(_integers(pydantic_core.from_json(data)))
        return adapter.validate_json(normalised, strict=True)
    except ValidationError as error:
        _refuse(error, title, tagged)


def _refuse(error: ValidationError, title: str, tagged: bool) -> NoReturn:
    if _is_syntax(error):
        raise error
    problems = []
    for item in error.errors(include_url=False, include_input=False):
        loc = item["loc"][1:] if tagged else item["loc"]
        problems.append((".".join(str(step) for step in loc) or ROOT, item["msg"]))
    raise ReplyError(title=title, problems=problems) from None


def _is_syntax(error: ValidationError) -> bool:
    return any(item["type"] == "json_invalid" for item in error.errors(include_url=False))


def _whole_float(value: object) -> bool:
    return isinstance(value, float) and value.is_integer()


def _integers(value: object) -> object:
    """``value`` (decoded JSON) with every number that has a zero fraction as an integer."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _integers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integers(item) for item in value]
    return value
