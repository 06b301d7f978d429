"""Outcomes in words: what a person reads of an operation that was refused, asked, failed or
is being retried, from an :data:`~harness.domain.outcome.Outcome`.

No exception class name, internal id, hook point, operation name, executor address or socket
text is put in a sentence here: they stay in the logs and the status view's detail. A
transport failure names the hook service by its configured name only. The callers choose
which outcome they have; the words are this module's.
"""

from __future__ import annotations

from typing import Final

from harness.domain import HelpDecision
from harness.domain.outcome import Asked, Failed, Refused
from harness.replies.neutral import neutral

__all__ = [
    "IDENTITY_CHANGED",
    "SOMETHING_WRONG",
    "command",
    "failed",
    "failure",
    "nested_too_deep",
    "no_response",
    "refused",
    "retrying",
    "service_down",
    "tool_not_approved",
    "tool_refused",
    "turn",
]


IDENTITY_CHANGED: Final = "an executor changed the sender or the role"
"""Why a command whose context came back with another sender or role is refused."""

SOMETHING_WRONG: Final = "something went wrong on the harness's side; the logs have the details"
"""A failure with nothing a person can act on: its class and text stay in the log."""

_TRANSPORT: Final = frozenset({"HookTransportError"})
_TIMEOUTS: Final = frozenset({"HookTimeoutError"})
_LOST_MESSAGES: Final = frozenset({"MessagesMissing"})
"""The harness's own store lost what it sent by reference: neither the model nor a service."""


def refused(reason: str) -> str:
    """``refused: <reason>``; the reason is written for the sender, mentions and all."""
    return f"refused: {reason}"


def failed(typed: str, message: str) -> str:
    """``/model failed: <message>``; the message may quote the arguments, so it pings nobody."""
    return f"{neutral(typed)} failed: {neutral(message)}"


def command(typed: str, outcome: Refused | Asked | Failed) -> str:
    """The reply to a command that was not done: ``refused: <reason>``, else ``<typed> failed: …``.

    A refusal is an abort flagged so, any abort of a pre executor (DESIGN.md
    "command.invoked") or an ask (nobody is asked about a command).
    """
    if isinstance(outcome, Failed):
        return failed(typed, failure(outcome))
    if outcome.on_purpose:
        return refused(outcome.reason)
    return failed(typed, outcome.reason)


def failure(outcome: Failed) -> str:
    """A failure in one sentence a person can act on, with how often it was tried.

    The error's own human sentence when it has one (``HarnessError.user_message``);
    otherwise what kind of trouble it was, never the error's class or text.
    """
    tries = f" (tried {outcome.attempt} times)" if outcome.attempt > 1 else ""
    if outcome.user_message:
        return f"{outcome.user_message}{tries}"
    if outcome.error_type in _TRANSPORT:
        return f"{_service(outcome.service)} could not be reached{tries}; try again in a minute"
    if outcome.error_type in _TIMEOUTS:
        return f"{_service(outcome.service)} did not answer in time{tries}; try again in a minute"
    if outcome.error_type.startswith("Timeout."):
        return f"it took too long and was stopped{tries}; try again in a minute"
    return SOMETHING_WRONG.replace(";", f"{tries};", 1)


def _service(name: str) -> str:
    """The hook service by its configured name; an unnamed one (``executor[0]``) as such."""
    if not name or name.startswith("executor[") or any(c in name for c in ":/@"):
        return "a hook service"
    return f"the hook service `{neutral(name)}`"


def turn(outcome: Refused | Asked | Failed) -> str:
    """What a message's thread reads when answering it was not done (the task goes on)."""
    if isinstance(outcome, Failed):
        return f"failed: {failure(outcome)}"
    kind = "refused" if isinstance(outcome, Asked) or outcome.deliberate else "stopped"
    return f"{kind}: {outcome.reason}"


def service_down(outcome: Failed) -> bool:
    """Whether ``outcome`` is a hook service that could not be reached or did not answer."""
    return outcome.error_type in _TRANSPORT | _TIMEOUTS


def retrying(outcome: Failed, attempt: int, limit: int) -> str:
    """The notice that an operation is being tried again (``attempt`` of ``limit``).

    A hook service that is down is named as such (by its configured name, never its
    address); the thread's messages lost by the store (a model call sent them by
    reference) as such; anything else that is retried aloud is the model not answering.
    """
    if service_down(outcome):
        return f"{_why(outcome)}; retrying, {attempt} of {limit}"
    if outcome.error_type in _LOST_MESSAGES:
        return (
            "the thread's earlier messages could not be read back from storage; retrying "
            f"with them in full, {attempt} of {limit}"
        )
    return f"the model is not answering: {_why(outcome)}; retrying, {attempt} of {limit}"


def _why(outcome: Failed) -> str:
    if outcome.user_message:
        return outcome.user_message
    return failure(outcome.model_copy(update={"attempt": 1})).split(";", 1)[0]


def tool_refused(outcome: Refused | Asked) -> str:
    """What the model reads of a tool call an executor vetoed: an answer, not the task's end."""
    kind = "refused" if isinstance(outcome, Asked) or outcome.deliberate else "aborted"
    return f"{kind}: {outcome.reason}"


def tool_not_approved(decision: HelpDecision, timeout_seconds: float) -> str:
    """What the model reads of a call nobody approved: a timeout is never a denial."""
    if decision.timed_out:
        return f"not run: approval timed out after {timeout_seconds:g} s; nobody approved it"
    return f"refused: <@{decision.decided_by}> did not approve ({decision.choice})"


def no_response() -> str:
    """Why a turn stopped when no model call body answered (the thread reads ``stopped: …``)."""
    return "the model gave no response"


def nested_too_deep(depth: int, most: int) -> str:
    """Why an operation started ``depth`` deep inside others was stopped (``most`` is the
    limit): the chain of operations is the log's, never the thread's."""
    return (
        f"operations nested {depth} deep (the most is {most}): an executor runs the "
        "operation it serves, or one that runs it again"
    )
