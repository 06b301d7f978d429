"""``python -m harness.worker``: the worker process; the code is :mod:`harness.temporal.worker`."""

from __future__ import annotations

from harness.temporal.worker import main

if __name__ == "__main__":
    main()
