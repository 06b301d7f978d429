"""The root of every error the harness raises on purpose.

Each package declares its own errors in its own ``errors.py``; all derive from
:class:`HarnessError` so a caller can catch the harness's failures in one clause::

    HarnessError
    ├── HookError                      harness.hooks.errors
    │   ├── HookAbort                  an executor cancelled the operation (maybe a refusal)
    │   ├── HookTransportError         a remote executor could not be reached or answered badly
    │   ├── HookValidationError        an executor returned a replacement that is not valid
    │   ├── HookTimeoutError           an executor or a chain ran past its time budget
    │   ├── HookConfigError            the executor configuration file is wrong
    │   └── UnknownHookPointError      a point name outside the catalogue
    ├── HttpClientError                harness.http.errors: an HTTP provider's call failed
    ├── WireError                      harness.hooks.remote.wire: a reply broke the protocol
    ├── RedactedError                  harness.hooks.remote.wire: a foreign cause, text redacted
    ├── TaskError                      harness.temporal.errors
    │   ├── TaskRejected               the task refused the request (finished, invalid)
    │   │   └── TaskRefused            a hook refused it on purpose (a sender with no role)
    │   ├── TaskNotFound               no task has that id
    │   ├── TaskBusy                   the task is at Temporal's limit of in-flight requests
    │   ├── TaskTimedOut               the task did not answer in time; the request may apply
    │   ├── TaskNoWorker               no worker took the request (none polls its task queue)
    │   └── TaskUnavailable            Temporal cannot be reached
    ├── PayloadKeyError                harness.temporal.errors: no usable HARNESS_PAYLOAD_KEY
    ├── PayloadCodecError              harness.temporal.errors: a stored payload does not decrypt
    ├── TemporalConfigError            harness.temporal.errors: TEMPORAL_* or a profile is wrong
    ├── TemporalUnreachable            harness.temporal.errors: the worker gave up waiting at start
    ├── TracingConfigError             harness.tracing: an OTEL_* variable is wrong
    └── MetricsConfigError             harness.temporal.telemetry: HARNESS_METRICS_ADDRESS unusable

Foreign exceptions become these at two boundaries only: the HTTP providers
(:mod:`harness.http`) and :func:`harness.hooks.remote.wire.map_transport_errors`.

Each error says whether another attempt may help (:attr:`HarnessError.retryable`),
because the activity boundary keeps only a type name and a message: the wrapper
turns a ``False`` into a non-retryable Temporal failure, so a misconfiguration fails
the task on its first attempt instead of after every retry.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class for errors raised deliberately by the harness."""

    @property
    def retryable(self) -> bool:
        """Whether another attempt may succeed; yes unless the error knows better.

        Most failures the harness raises are about something outside it (a server,
        a network, a slow executor), so the default is to try again; errors about
        the request itself or the configuration override this with ``False``.
        """
        return True

    @property
    def user_message(self) -> str:
        """One sentence for the person in the thread, or "" to let the caller describe it.

        The activity boundary keeps only a type and a technical message; an error that
        knows how to say what went wrong in human terms (a model provider that does not
        answer) says it here, and the wrapper carries it to the workflow's reply.
        """
        return ""


def is_retryable(error: BaseException) -> bool:
    """Whether ``error`` is worth another attempt (``retryable`` when it has one; else yes).

    Args:
        error: any exception an operation raised.

    Returns:
        ``False`` only when the error says so.
    """
    return getattr(error, "retryable", True) is not False
