"""``running_stack``: ready means serving, and a part that cannot start fails the start at once.

The session's stack (the plugin's ``harness_stack``) is checked for what it promises; a
second stack, whose worker and bot refuse a broken hooks file, must fail within seconds
naming the worker, with the end of its log, instead of waiting out the ready timeout.
"""

from __future__ import annotations

import time
import urllib.request

import pytest

from bot.testing import StackStartError, running_stack


def test_the_sessions_stack_is_ready_and_keeps_one_log_per_process(harness_stack):
    with urllib.request.urlopen(harness_stack.worker_health_url, timeout=5) as response:
        assert response.status == 200
    with urllib.request.urlopen(f"{harness_stack.bot_base}/readyz", timeout=5) as response:
        assert response.status == 200
    assert sorted(p.name for p in harness_stack.log_dir.iterdir()) == [
        "bot.log",
        "temporal.log",
        "worker.log",
    ]
    assert "local mode" in harness_stack.logs("bot")
    assert harness_stack.logs().startswith("== bot ==\n")
    assert (harness_stack.data_dir / "temporal.db").exists()
    assert harness_stack.env["HARNESS_TEMPORAL_ADDRESS"] == harness_stack.temporal_address


def test_a_worker_that_cannot_start_fails_the_stack_fast_naming_it(tmp_path):
    hooks = tmp_path / "hooks.toml"
    hooks.write_text('[[policy.rules]]\nname = "x"\naction = "shrug"\n')
    started = time.monotonic()
    with pytest.raises(StackStartError) as caught, running_stack(hooks_config=hooks):
        pytest.fail("a stack with a broken hooks file started")
    assert time.monotonic() - started < 20  # not the 60 s ready timeout
    error = caught.value
    assert error.part == "worker"
    assert str(error).startswith("the stack's worker exited with status 2 before it was ready")
    assert "--- the end of the worker's log (" in str(error)
    assert "worker not starting" in error.tails["worker"]
    assert "policy.rules[0]: field 'action'" in error.tails["worker"]
    assert not tmp_path.joinpath("logs").exists()  # its data dir was its own, and is gone
