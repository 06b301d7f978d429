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
    └── TaskError                      harness.temporal.errors
        ├── TaskRejected               the task refused the request (finished, invalid)
        ├── TaskNotFound               no task has that id
        ├── TaskBusy                   the task is at Temporal's limit of in-flight requests
        └── TaskUnavailable            Temporal cannot be reached

Foreign exceptions become these at two boundaries only: the HTTP providers
(:mod:`harness.http`) and :func:`harness.hooks.remote.wire.map_transport_errors`.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class for errors raised deliberately by the harness."""
