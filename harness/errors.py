"""The root of every error the harness raises on purpose.

Each package declares its own errors in its own ``errors.py``; all derive from
:class:`HarnessError` so a caller can catch the harness's failures in one clause::

    HarnessError
    └── HookError                      harness.hooks.errors
        ├── HookAbort                  an executor cancelled the operation (maybe a refusal)
        ├── HookTransportError         a remote executor could not be reached or answered badly
        ├── HookValidationError        an executor returned a replacement that is not valid
        └── UnknownHookPointError      a point name outside the catalogue
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class for errors raised deliberately by the harness."""
