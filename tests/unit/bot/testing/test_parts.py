"""The mechanics of a stack's processes, on small real processes (no stack)."""

from __future__ import annotations

import sys
import time

import pytest

from bot.testing.parts import StackStartError, spawn, stop_all, tail, wait_ready
from bot.testing.stack import free_port


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_part_that_exits_is_named_with_the_end_of_its_log(tmp_path):
    quits = spawn(
        "quitter",
        python("print('\\n'.join(map(str, range(50)))); raise SystemExit(3)"),
        env={},
        cwd=tmp_path,
        log=tmp_path / "quitter.log",
        port=free_port(),
    )
    with pytest.raises(StackStartError) as caught:
        wait_ready([quits], patience=30)
    assert caught.value.part == "quitter"
    assert str(caught.value).splitlines()[:2] == [
        "the stack's quitter exited with status 3 before it was ready",
        f"--- the end of the quitter's log ({tmp_path / 'quitter.log'}) ---",
    ]
    assert caught.value.tails["quitter"] == "\n".join(str(n) for n in range(20, 50))
    assert caught.value.retryable is False


def test_a_part_not_ready_in_time_says_what_it_waits_for(tmp_path):
    port = free_port()
    sleeper = spawn(
        "sleeper",
        python("import time; time.sleep(30)"),
        env={},
        cwd=tmp_path,
        log=tmp_path / "sleeper.log",
        port=port,
    )
    try:
        with pytest.raises(StackStartError) as caught:
            wait_ready([sleeper], patience=0.5)
    finally:
        stop_all([sleeper])
    assert str(caught.value).startswith(
        f"the stack's sleeper was not ready within 0 s (nothing listens on 127.0.0.1:{port}); "
        "if the machine is only slow, give it longer (ready_timeout)"
    )


def test_a_ready_url_that_answers_503_is_waited_for_with_its_reason(tmp_path):
    port = free_port()
    server = spawn(
        "server",
        python(
            "import http.server, json\n"
            "class H(http.server.BaseHTTPRequestHandler):\n"
            "    def do_GET(self):\n"
            "        self.send_response(503); self.end_headers()\n"
            "        body = json.dumps({'reason': 'starting: not polling yet'})\n"
            "        self.wfile.write(body.encode())\n"
            f"http.server.HTTPServer(('127.0.0.1', {port}), H).serve_forever()\n"
        ),
        env={},
        cwd=tmp_path,
        log=tmp_path / "server.log",
        ready_url=f"http://127.0.0.1:{port}/readyz",
    )
    try:
        with pytest.raises(StackStartError) as caught:
            wait_ready([server], patience=1)
    finally:
        stop_all([server])
    assert "/readyz: starting: not polling yet)" in str(caught.value)


def test_stop_all_kills_what_ignores_sigterm(tmp_path):
    stubborn = spawn(
        "stubborn",
        python(
            "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "print('up', flush=True)\nwhile True: time.sleep(1)"
        ),
        env={},
        cwd=tmp_path,
        log=tmp_path / "s.log",
    )
    deadline = time.monotonic() + 10
    while "up" not in tail(tmp_path / "s.log") and time.monotonic() < deadline:
        time.sleep(0.05)
    stop_all([stubborn], patience=0.3)
    assert stubborn.proc.returncode == -9


def test_tail_of_a_missing_file_is_empty(tmp_path):
    assert tail(tmp_path / "nothing.log") == ""
