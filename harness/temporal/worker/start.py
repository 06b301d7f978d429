"""The worker's start: the refusals that need no SDK, before the imports that take a second.

:func:`harness.temporal.worker.main` reads the settings here (:func:`checked_settings`): a
setting it cannot take or no payload key is refused having loaded the settings only (about
0.2 s of imports, not the 1.2 s of the Temporal SDK, SQLAlchemy and every body: issue 27);
then :func:`harness.temporal.worker.entry.run` builds and runs the worker. How a refusal is
said (one line on stderr, exit status 2) and how the process leaves are this module's.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import NoReturn

from harness.config import Settings
from harness.errors import HarnessError
from harness.redaction import Redactor
from harness.startup import EXIT_STATUS, load_settings, one_line
from harness.temporal.keys import load_keys


def checked_settings() -> Settings:
    """The worker's settings, with a payload key: what it refuses before loading the rest.

    Raises:
        SystemExit: 2 (:data:`~harness.startup.EXIT_STATUS`), one line on stderr and no
            traceback: a setting it cannot take, no payload key (issue 9).
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = load_settings(Settings)
        load_keys(settings)  # before anything starts: no key, no worker (issue 9)
    except HarnessError as error:
        refuse(error)
    return settings


def leave(status: int) -> NoReturn:
    """Exit with ``status`` without the interpreter's finalization, everything flushed.

    The SDK's core threads can outlive the interpreter's teardown: about one exit in
    ten after a failed connect aborted (SIGABRT, "PyGILState_Release") or segfaulted,
    turning a clean stop (0) or a refusal (2) into a crash. Nothing is left to run by
    then; the logs and the standard streams are flushed first.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def refuse(error: BaseException, settings: Settings | None = None) -> NoReturn:
    """One line on stderr and exit status 2: why the worker does not start (issue 11)."""
    redactor = Redactor(secrets=settings.secret_values() if settings else ())
    print(f"worker not starting: {redactor.redact_text(one_line(error))}", file=sys.stderr)
    raise SystemExit(EXIT_STATUS) from None
