"""``python -m bot`` observed like a service (issue 11): JSON log lines, tracing from ``OTEL_*``.

Run as an operator runs it, a subprocess configured through its environment; no
Temporal is needed to start the bot.
"""

from __future__ import annotations

import asyncio
import json
import sys

from .test_start import ROOT, bot_env, refusal

HEADER_SECRET = "zq-bot-Collector-7Kp3-key"


async def start_lines(env: dict[str, str]) -> list[str]:
    """Start the bot, read its stderr up to the "bot listening" line, stop it."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    try:
        async with asyncio.timeout(30):
            while not lines or "bot listening" not in lines[-1]:
                line = await process.stderr.readline()
                assert line, "bot exited: " + "".join(lines)
                lines.append(line.decode())
    finally:
        process.terminate()
        await process.wait()
    return lines


async def test_with_json_logs_every_line_of_the_bot_is_a_json_object(tmp_path):
    env = bot_env(
        tmp_path,
        HARNESS_LOG_FORMAT="json",
        OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:4318/",
        OTEL_EXPORTER_OTLP_HEADERS=f"x-collector-key={HEADER_SECRET}",
    )
    lines = await start_lines(env)
    records = [json.loads(line) for line in lines]  # every line, or this fails on it
    assert all(set(r) == {"time", "level", "logger", "message"} for r in records)
    assert records[-1]["logger"] == "bot" and records[-1]["message"].startswith("bot listening")
    said = [r["message"] for r in records]
    assert "tracing to otlp (http/protobuf, http://127.0.0.1:4318) as tiny-harness-bot" in said
    assert HEADER_SECRET not in "".join(lines)


async def test_by_default_the_bot_logs_text_and_exports_nothing(tmp_path):
    lines = await start_lines(bot_env(tmp_path))
    assert not any(line.startswith("{") for line in lines)
    assert any(" INFO bot tracing off (no OTEL_TRACES_EXPORTER" in line for line in lines)


async def test_a_wrong_otel_variable_stops_the_bot_with_one_line_naming_it(tmp_path):
    line = await refusal(bot_env(tmp_path, OTEL_TRACES_EXPORTER="otlp,zipkin"))
    assert line.endswith(
        "bot not starting: OTEL_TRACES_EXPORTER: unknown exporter zipkin; use otlp, console, none"
    )
