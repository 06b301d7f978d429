"""How a person runs one of our programs from their shell: the hints the product prints.

A hint such as ``python -m bot.say --click 1`` fails in a shell where the project's virtual
environment is not active, which is how ``make run`` leaves a newcomer (issue 26); so a
hint names the interpreter that runs the process printing it, relative to the working
directory when it lies under it (``.venv/bin/python``). Not a launcher: nothing here runs
anything.
"""

from __future__ import annotations

import sys
from pathlib import Path


def program(module: str) -> str:
    """``<this interpreter> -m <module>``, as a person would type it here.

    Args:
        module: the module run with ``-m`` (``bot.say``).

    Returns:
        The command, e.g. ``.venv/bin/python -m bot.say``.
    """
    interpreter = Path(sys.executable or "python")
    try:
        interpreter = interpreter.relative_to(Path.cwd())
    except ValueError:  # outside the working directory: the absolute path works anywhere
        pass
    return f"{interpreter} -m {module}"
