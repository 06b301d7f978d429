"""Errors :class:`harness.temporal.client.HarnessClient` raises, so callers never catch Temporal's::

HarnessError                  harness.errors
├── TaskError                 a request to a task did not go through
│   ├── TaskRejected          the task refused it (finished, invalid, or it failed)
│   │   └── TaskRefused       a hook refused it on purpose (a sender with no role, a policy)
│   ├── TaskNotFound          no task with that id was ever started (or it was purged)
│   ├── TaskBusy              the task is at Temporal's limit of concurrent requests
│   ├── TaskTimedOut          the task did not answer in time (the request may still apply)
│   ├── TaskNoWorker          no worker took the request in time (none polls its task queue)
│   └── TaskUnavailable       Temporal could not be reached
├── PayloadKeyError           HARNESS_PAYLOAD_KEY (or its file) is missing or malformed
├── PayloadCodecError         a stored payload cannot be decrypted (unknown key id, altered)
├── MessagesMissing           messages sent to an activity by reference are not in the store
├── TemporalConfigError       how to reach Temporal is misconfigured (TEMPORAL_*, a profile)
└── TemporalUnreachable       the worker gave up waiting for Temporal at start

The payload errors come from :mod:`harness.temporal.keys` and :mod:`harness.temporal.codec`,
before Temporal is called or while a payload is decoded; neither ever holds key material.
:class:`TemporalConfigError` comes from :mod:`harness.temporal.connection`, the boundary for
``temporalio.envconfig``'s errors, before connecting; it never holds an API key or key data.
"""

from __future__ import annotations

from harness.errors import ConfigurationError, HarnessError, ServiceError


class TaskError(HarnessError):
    """A request to a task did not go through."""

    def __init__(self, *, task_id: str, reason: str, detail: str = "") -> None:
        self.task_id = task_id
        self.reason = reason
        """What a person may read (no ids, no exception text)."""
        self.detail = detail
        """The technical cause, for logs (``""``: the reason says it all)."""
        shown = f"{reason} ({detail})" if detail and detail != reason else reason
        super().__init__(f"task {task_id}: {shown}")


class TaskRejected(TaskError):
    """The task refused the request: it has finished, the input is invalid, or it failed."""


class TaskRefused(TaskRejected):
    """A hook refused the request on purpose: say ``refused: <reason>`` to the sender only.

    Raised for a message from someone with no role in the task (the built-in
    ``channel.received`` guard), or any ``HookAbort(refusal=True)`` on the way in.
    Nothing reached the agent or the transcript. ``reason`` is written for the
    sender (it names who can invite them).
    """


class TaskNotFound(TaskError):
    """No task has this id: nothing was started there, so there is nothing to act on.

    Separate from :class:`TaskUnavailable` so a caller can tell "start one first"
    from "try again later" without reading the message text.
    """


class TaskBusy(TaskError):
    """The task stayed at a concurrency limit: nothing was applied, and trying again later may work.

    Temporal accepts at most 10 in-flight updates per workflow (and rate-limits
    namespaces); past that it answers ``RESOURCE_EXHAUSTED``, which the SDK retries
    for about ten seconds before giving up. Separate from :class:`TaskUnavailable`
    because the server *did* answer: telling the user it is unreachable would send
    them looking for an outage that is not there.

    Args:
        task_id: the busy task.
        reason: Temporal's message.
        in_flight: how many requests the task was already handling, when Temporal said.
    """

    def __init__(self, *, task_id: str, reason: str, in_flight: int | None = None) -> None:
        self.in_flight = in_flight
        super().__init__(task_id=task_id, reason=reason)


class TaskTimedOut(TaskError):
    """The task did not answer in time; what was sent may still be applied.

    Temporal reports an update whose wait ran out (``update_timeout_seconds``, or
    its own deadline) the same way as one whose caller went away, and in neither
    case is the update withdrawn: the task may still apply it. Separate from
    :class:`TaskUnavailable` because the server answered, and from
    :class:`TaskRejected` because nothing was refused — the user should look
    (``/status``) before trying again, or the change may be applied twice.
    """


class TaskNoWorker(TaskError):
    """No worker took the request in time; it was withdrawn, so nothing reached the task.

    Temporal accepts a request with no worker polling its task queue and keeps it
    waiting forever; the caller gives up after its wait and withdraws it. Separate from
    :class:`TaskTimedOut` (nothing may still apply) and from :class:`TaskUnavailable`
    (Temporal answered): what to check is the worker, on this task queue.

    Args:
        task_id: the task the request was for.
        task_queue: the queue no worker took it from.
        seconds: how long the caller waited.
        pollers: how many workers Temporal saw polling the queue recently (0: none).
    """

    def __init__(self, *, task_id: str, task_queue: str, seconds: float, pollers: int) -> None:
        self.task_queue = task_queue
        self.seconds = seconds
        self.pollers = pollers
        seen = "no worker polls it" if pollers == 0 else f"{pollers} polled it recently"
        super().__init__(
            task_id=task_id,
            reason=f"no worker answered within {seconds:g} s on "
            f"task queue {task_queue} ({seen}); nothing was delivered",
        )


class TaskUnavailable(TaskError):
    """Temporal could not be reached (or answered with an error that is not about the task)."""


class PayloadKeyError(ConfigurationError):
    """No usable payload key: nothing may be sent to Temporal unencrypted (issue 9).

    Raised by :func:`harness.temporal.keys.load_keys` before any connection is made,
    so the worker and the bot refuse to start instead of writing plain text. The
    message names where the key was looked for and what is wrong with it, never the
    value.

    Args:
        source: where the key came from (``HARNESS_PAYLOAD_KEY`` or the key file).
        problem: what is wrong, and how to fix it when that is not obvious.
    """

    def __init__(self, *, source: str, problem: str) -> None:
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}")


class PayloadCodecError(HarnessError):
    """A payload marked as ours cannot be decrypted: written under another key, or altered.

    Args:
        key_id: the id recorded on the payload (a digest of the key, safe to show).
        problem: what failed, and what to configure when it is a missing key.
    """

    def __init__(self, *, key_id: str, problem: str) -> None:
        self.key_id = key_id
        self.problem = problem
        super().__init__(f"payload under key id {key_id or '(none)'}: {problem}")

    @property
    def retryable(self) -> bool:
        """No: the same bytes and keys fail the same way on every attempt."""
        return False


class MessagesMissing(HarnessError):
    """Messages an activity was sent by reference are not in the store
    (:mod:`harness.temporal.refs`).

    Retryable: the workflow sends a failed attempt's messages whole the next time, so a
    store that lost them (or a worker on another database) costs one attempt.

    Args:
        scope: the workflow run whose messages they are.
        missing: how many of them the store does not hold.
        named: how many the activity was sent.
    """

    def __init__(self, *, scope: str, missing: int, named: int) -> None:
        self.scope = scope
        self.missing = missing
        super().__init__(
            f"{missing} of the {named} messages of {scope or '(no run)'} sent by reference "
            "are not in the store (is every worker on the same database?); the next attempt "
            "sends them whole"
        )

    @property
    def retryable(self) -> bool:
        """Yes: the next attempt carries the messages whole."""
        return True


class TemporalUnreachable(ServiceError):
    """The worker waited its patience for Temporal at start and never got through.

    Raised by :func:`harness.temporal.worker.connect.connect`, so a worker started against a
    server that stays down stops with one line saying where it looked and what to check,
    not a traceback; a supervisor starts it again.

    Args:
        where: the connection, described without secrets.
        seconds: how long it tried.
        reason: the last attempt's error, with what it most likely means.
    """

    def __init__(self, *, where: str, seconds: float, reason: str) -> None:
        self.where = where
        self.seconds = seconds
        self.reason = reason
        super().__init__(f"Temporal at {where} not reachable in {seconds:g} s: {reason}")


class TemporalConfigError(ConfigurationError):
    """How to reach Temporal is misconfigured: a ``TEMPORAL_*`` variable, a profile, a TLS file.

    Raised by :func:`harness.temporal.connection.resolve` before any connection is
    attempted, so a typo fails the start with the setting named instead of looking like
    a server that is down. The message names the setting and the fix, never a value
    that may be secret (an API key, key data, a line of the profile file).

    Args:
        source: the setting at fault (``TEMPORAL_CONFIG_FILE``, a profile key, ...).
        problem: what is wrong, and how to fix it.
    """

    def __init__(self, *, source: str, problem: str) -> None:
        self.source = source
        self.problem = problem
        super().__init__(f"{source}: {problem}")
