"""The one reply rule: every sentence a person reads about a refusal, a failure, a question
or a retry is worded here, from an :data:`~harness.domain.outcome.Outcome`.

No exception class name, internal id (task, request or question ids), hook point,
executor address or socket text is ever put in a sentence here: they stay in the logs and
the status view's detail. A transport failure names the hook service by its configured
name only. Callers are the workflow (commands, turns, retry notices, questions), the
command step (:mod:`harness.temporal.workflow.command_step`), the agent loop (what the model reads
of a vetoed tool call) and the bot (``bot.replies``, what it says around a command).
Harness never imports ``commands``, which alone knows whether a command is top level, so
the spelling travels in the context (``CommandInvokedContext.invocation``, set by the bot
from the registry); without it the umbrella form is shown, which runs every command
(:mod:`harness.channels.umbrella`). A test scans the other modules for stray reply
literals (``tests/unit/channels/test_reply_rule.py``). Text posted goes through
``channel.sent``, whose redactor is the one scrub on the way out.
"""

from __future__ import annotations

import re
from typing import Any, Final

from harness.channels.neutral import neutral
from harness.channels.umbrella import command_name, invocation
from harness.domain import ChannelMessage, HelpDecision, TaskStatus
from harness.domain.outcome import Asked, Failed, Refused

HELP: Final = invocation("help")
"""``/task help``, where an unknown command points (a test checks the registry agrees)."""

IDENTITY_CHANGED: Final = "an executor changed the sender or the role"
"""Why a command whose context came back with another sender or role is refused."""

QUESTION_CLOSED: Final = (
    "that question is no longer open: it was answered, it timed out, or its request ended"
)
"""Why a click on a question's button is not taken (said without the question's id), when
the task no longer knows how it closed (:func:`late_click` says it when it does)."""

TASK_FINISHED: Final = "this task has finished"
"""Why a finishing or ended task takes no more commands, messages or clicks (no id)."""

QUESTION_TIMED_OUT: Final = "timed out: nobody answered in time"
"""The note a timed-out question's message is edited to (its buttons removed)."""

QUESTION_STOPPED: Final = "closed by a stop: nobody answered before the turn was stopped"
"""The note of a question left open when its turn was stopped."""

ANSWER_CHARS: Final = 200

SOMETHING_WRONG: Final = "something went wrong on the harness's side; the logs have the details"
"""A failure with nothing a person can act on: its class and text stay in the log."""

NO_ANSWER: Final = "(no answer)"
"""What a turn that produced no text posts."""


TASK_ENDED: Final = "the task it belongs to ended"
"""Why a sub-task's turn was cut off: its parent ended (finished or cancelled) first."""

PARENT_BUDGET_SPENT: Final = "the budget of the task it belongs to is used up"
"""Why a sub-task's turn was stopped by its parent (issue 26: its usage counts there)."""

_SUBTASK_ID: Final = re.compile(r"/sub-(\d+)$")
_TRANSPORT: Final = frozenset({"HookTransportError"})
_TIMEOUTS: Final = frozenset({"HookTimeoutError"})


def spelled(command: str, typed: str = "") -> str:
    """How a reply names ``command``: as ``typed`` (``/model``), else ``/task <name>``."""
    return typed or invocation(command_name(command))


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
    address); anything else that is retried aloud is the model not answering.
    """
    if service_down(outcome):
        return f"{_why(outcome)}; retrying, {attempt} of {limit}"
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


def budget_spent(noun: str, amount: str, raise_with: str, *, timed_out: bool) -> str:
    """The reply of a turn stopped because a budget is used up (``raise_with`` raises it)."""
    waited = " and nobody answered in time" if timed_out else ""
    return f"stopped: the {noun} budget of {amount} is used up{waited}; `{raise_with}` raises it"


def cost_uncounted(model: str, instead: str) -> str:
    """Why a cost limit is not set: the task's model has no price, so its cost stays $0.00.

    ``instead`` is the command that limits tokens (``/task budget tokens 20k``).
    """
    which = f"the model `{neutral(model)}`" if model else "this task's model"
    return (
        f"a cost limit cannot be counted here: {which} has no price (an operator sets "
        f"prices in HARNESS_MODEL_PRICES), so the cost would stay $0.00 and never reach "
        f"the limit; limit tokens instead: `{instead}`"
    )


def cost_not_counted(model: str) -> str:
    """The line under a budget whose cost limit cannot be reached (no price for ``model``)."""
    which = f"`{neutral(model)}`" if model else "this task's model"
    return f"note: the cost is not counted, {which} has no price (HARNESS_MODEL_PRICES)"


def fitted(text: str, limit: int) -> str:
    """``text`` as one Slack message holds it: cut at a line before ``limit`` characters, with
    a last line saying how much did not fit (the transcript keeps it all)."""
    if len(text) <= limit:
        return text

    def note(left: int) -> str:
        return f"\n… ({left:,} more characters do not fit in one Slack message)"

    head = text[: limit - len(note(len(text)))]
    head = head.rsplit("\n", 1)[0] if "\n" in head else head
    return head + note(len(text) - len(head))


def question_answered(user: str, choice: str) -> str:
    """The note an answered question's message is edited to: who answered, and what."""
    line = " ".join(choice.split())
    line = line if len(line) <= ANSWER_CHARS else line[: ANSWER_CHARS - 1] + "…"
    return f"answered by <@{user}>: {neutral(line)}"


def late_click(note: str) -> str:
    """What someone who clicks a closed question reads (only they see it): how it closed."""
    return f"this question is no longer open ({note}), so your answer was not taken"


def not_stopped(stopping: bool) -> str:
    """The reply to a ``stop`` with nothing left to stop (only its sender sees it)."""
    if stopping:
        return "the turn is already being stopped; what it did follows in the thread"
    return "nothing is running: the task is waiting for your next message"


def question_timed_out(question: str, waited: str, *, approval: bool) -> str:
    """Posted when nobody answered a question within its timeout (``waited``, in words)."""
    outcome = "not approved" if approval else "the agent goes on without it"
    return f"No answer to “{question}” within {waited}: timed out, {outcome}."


def unknown(typed: str) -> str:
    """The reply to what runs no command here (``/task teleport``), pointing at the help.

    The bot says it of what it cannot route, the task of a command no body answered.
    """
    return f"`{neutral(typed)}` is not a command here; `{HELP}` lists them"


def usage(problem: str, synopsis: str) -> str:
    """The reply to arguments that do not fit: what is wrong, then the right form."""
    return f"{problem}\nusage: `{synopsis}`"


def task_ended(done: str, *, subtask: bool, task_id: str = "") -> str:
    """What a task's thread reads when it ends (``done``: what ``task.complete`` said).

    A sub-task shares its parent's thread and channel, so it says nothing of starting
    another: a mention there reaches the parent (issue 26). No id reaches the thread
    either: the task's own (``task_id``), which the default ``task.complete`` line starts
    with, is left out, and a sub-task's is said as ``sub-task <n>``.
    """
    if task_id:
        done = done.removeprefix(f"{task_id} ")
        done = re.sub(rf"{re.escape(task_id)}/sub-([\w-]+)", r"sub-task \1", done)
    if subtask:
        return f"This sub-task has ended: {done}."
    return f"This task has ended: {done}. Mention me to start a new one here."


def unrouted() -> str:
    """Why a message was not delivered: no routing body gave it a task."""
    return "nothing decided which task this message is for, so no task took it"


def no_response() -> str:
    """Why a turn stopped when no model call body answered (the thread reads ``stopped: …``)."""
    return "the model gave no response"


def turns_used_up(turns: int) -> str:
    """What a turn answers when its model turns ran out before a final answer."""
    noun = "model turn" if turns == 1 else "model turns"
    return f"(stopped after {turns} {noun} without a final answer)"


def subtask_label(task_id: str) -> str:
    """``sub-task 1`` for the id a sub-task gets by default (``…/sub-1``); ``""`` otherwise.

    What a thread calls a sub-task: never its id (issue 26).
    """
    number = subtask_number(task_id)
    return f"sub-task {number}" if number is not None else ""


def subtask_number(task_id: str) -> int | None:
    """The number a sub-task's default id ends in (``…/sub-1``: 1); ``None`` otherwise."""
    found = _SUBTASK_ID.search(task_id)
    return int(found.group(1)) if found else None


def labelled(label: str, message: ChannelMessage) -> ChannelMessage:
    """``message`` saying which sub-task wrote it (``sub-task 1: …``), in its text and first
    section; unchanged without a label, or when its first block is named (a progress message,
    which says whose it is itself)."""
    blocks: list[Any] = list(message.blocks)
    first = dict(blocks[0]) if blocks else {}
    if not label or first.get("block_id"):
        return message
    inner = first.get("text")
    if first.get("type") == "section" and isinstance(inner, dict) and "text" in inner:
        blocks[0] = {**first, "text": {**inner, "text": f"*{label}:* {inner['text']}"}}
    return message.model_copy(update={"text": f"{label}: {message.text}", "blocks": blocks})


def spawned(task_id: str) -> str:
    """What ``/sub-task``'s reply adds once the sub-task runs: how the thread will name it."""
    label = subtask_label(task_id)
    return f" as {label}" if label else ""


def subtask_ended(title: str, status: TaskStatus, *, by_itself: bool = False) -> str:
    """The last line a sub-task posts in its parent's thread, after its label (no "mention
    me": it is not the channel's task). ``by_itself``: its request was over (answered,
    stopped or failed), not cut off by its parent's end."""
    who = f"“{neutral(title)}”" if title else "this sub-task"
    if status == TaskStatus.SUCCEEDED:
        return f"{who} is done."
    if status == TaskStatus.CANCELLED and by_itself:
        return f"{who} has ended without an answer: its turn was stopped."
    if status == TaskStatus.CANCELLED:
        return f"{who} was cancelled: {TASK_ENDED} first."
    return f"{who} ended ({status}); the task it belongs to goes on."


def subtask_state(status: TaskStatus) -> str:
    """A sub-task's state in a word, as the status view and the replies about it say it: one
    that succeeded is ``done`` (it answered its request)."""
    return "done" if status == TaskStatus.SUCCEEDED else str(status)


def no_such_subtask(number: int, labels: tuple[str, ...]) -> str:
    """The reply to a command naming a sub-task the task does not have: the ones it has."""
    if not labels:
        return f"this task has no sub-task {number}: it has no sub-tasks"
    return f"this task has no sub-task {number}; its sub-tasks: {', '.join(labels)}"


def nothing_to_stop(task_id: str) -> str:
    """The reply to a stop of sub-task ``task_id`` with no turn running (named as the thread
    names it); the task's own is :func:`not_stopped`."""
    return f"{subtask_label(task_id) or 'that sub-task'} has no turn running; nothing to stop"


def subtask_over(label: str, status: TaskStatus) -> str:
    """The reply to a stop of a sub-task that has ended."""
    return f"{label} has ended ({subtask_state(status)}); nothing to stop"


def stopping_subtask(user: str, label: str) -> str:
    """The public reply to ``/task stop sub-N``: who stops which sub-task's turn."""
    return (
        f"<@{user}> is stopping the turn of {label}; what it did and did not do follows in "
        "the thread"
    )


def cancelled_subtasks(labels: tuple[str, ...]) -> str:
    """``cancelled 1 running sub-task (sub-task 1)``: what a parent's end, or its roll-over,
    cut off."""
    many = "s" if len(labels) != 1 else ""
    return f"cancelled {len(labels)} running sub-task{many} ({', '.join(labels)})"


def not_a_subtask(text: str) -> str:
    """The usage problem of a command whose argument names no sub-task."""
    return f"`{neutral(text)}` names no sub-task: say which, as `sub-1`"
