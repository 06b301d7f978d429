"""A command line's entry function run in the test's process, read as a subprocess's run is.

A test that only checks what a command prints and its exit status needs the same ``main``,
the same argv parsing and the same output, not a fresh interpreter (about 1.2 s of CPU to
import the harness each time, issue 27); each command keeps at least one test that runs it
as a user does, in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence

import pytest


def run_here(
    main: Callable[[list[str]], int], argv: Sequence[str], capsys: pytest.CaptureFixture[str]
) -> subprocess.CompletedProcess[str]:
    """``main(argv)`` with its exit status (argparse's ``SystemExit`` included) and output."""
    capsys.readouterr()  # what the test printed before is not the command's
    try:
        status = main(list(argv))
    except SystemExit as exited:
        status = exited.code if isinstance(exited.code, int) else 1
    out = capsys.readouterr()
    return subprocess.CompletedProcess(list(argv), status, out.out, out.err)


def harness_env(monkeypatch: pytest.MonkeyPatch, **env: str) -> None:
    """The process's ``HARNESS_*`` variables replaced by ``env``, as a subprocess started with
    only these would see them (the caller's own settings must not leak into the command)."""
    for name in [k for k in os.environ if k.startswith("HARNESS_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
