"""README's local-mode walk-through, typed as written against the real stack (issue 26).

The commands are read from README between its ``<!-- walk-through -->`` markers, so the doc
and this test cannot drift: each ``.venv/bin/python -m bot.say …`` line runs as a person
types it at the repository's root, with no virtual environment active, against the kit's
stack started as ``make run`` starts its processes (dev server, worker with the commands
plugin, bot in local mode); every ``# shows:`` line under a command must be in what that
command printed. Together they show progress, a question, an approval and a sub-task.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from bot.testing import running_stack
from bot.testing.stack import NOT_INHERITED

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- walk-through -->\n```sh\n(.*?)```\n<!-- /walk-through -->", re.DOTALL)
SHOWS = "# shows: "
ASKED = re.compile(r"^bot in thread (\S+): .*--click N`\)$", re.MULTILINE)
"""A question or approval as ``bot.say`` prints it (with the hint to click), and its thread."""
PROGRESS = re.compile(r"^progress in thread (\S+) \(updated in place\)", re.MULTILINE)


def walkthrough() -> list[tuple[str, list[str]]]:
    """README's walk-through: each command with the excerpts it says the command prints."""
    [block] = BLOCK.findall((ROOT / "README.md").read_text())
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith(SHOWS):
            steps[-1][1].append(line.removeprefix(SHOWS))
        elif line and not line.startswith("#"):
            steps.append((line, []))
    return steps


def test_the_walkthrough_reads_as_a_newcomer_needs_it():
    steps = walkthrough()
    commands = [command for command, _ in steps]
    assert all(c.startswith(".venv/bin/python -m bot.say ") for c in commands)
    assert all(shows for _, shows in steps), "every command says what it shows"
    said = "\n".join(commands)
    for convention in ("plan: ", "call ask_human", "call write_artefact", "/sub-task "):
        assert convention in said
    assert commands.count(".venv/bin/python -m bot.say --user U1 --click 1") == 2


def test_typed_as_written_it_shows_progress_a_question_an_approval_and_a_subtask(tmp_path):
    steps = walkthrough()
    with running_stack(data_dir=tmp_path / "stack") as stack:
        bot = urlsplit(stack.bot_url)
        env = {k: v for k, v in os.environ.items() if not k.startswith(NOT_INHERITED)}
        env.pop("VIRTUAL_ENV", None)
        env.update(
            PATH="/usr/bin:/bin",  # no venv on PATH: the README's interpreter is named in full
            BOT_HOST=str(bot.hostname),
            BOT_PORT=str(bot.port),
            BOT_SIGNING_SECRET=stack.signing_secret,
        )
        printed = []
        for command, shows in steps:
            ran = subprocess.run(
                shlex.split(command),
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            out = ran.stdout
            printed.append(f"$ {command}\n{out}{ran.stderr}")
            transcript = "\n".join(printed)
            assert ran.returncode == 0 and not ran.stderr, transcript
            for excerpt in shows:
                assert excerpt in out, f"{excerpt!r} not shown; so far:\n{transcript}"
            # Each mention joins the task in a thread of its own: a question or approval of
            # its turn is asked there, with the turn's progress (issue 26), not elsewhere.
            if asked := set(ASKED.findall(out)):
                assert asked <= set(PROGRESS.findall(out)), transcript
