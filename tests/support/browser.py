"""A real headless browser for tests: Debian's ``chromium``, driven over the DevTools protocol.

What a person sees in the Temporal Web UI is only known by running the UI's JavaScript in
a browser, with its CORS checks and all (issue 26: the codec server refused the origin the
status link opens). ``make test`` installs ``chromium`` when it is missing (the Makefile's
``$(CHROMIUM)`` step); this module starts it headless with a fresh profile and no network
beyond loopback, and speaks the DevTools protocol over a websocket with aiohttp (no
playwright download, no Node). Not a browser automation library: navigate, read the page's
text, and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",  # chromium picks one and writes it to DevToolsActivePort
)


class Page:
    """One browser tab, over its DevTools websocket."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._ids = itertools.count(1)

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events arriving meanwhile are dropped)."""
        ask = next(self._ids)
        await self._socket.send_json({"id": ask, "method": method, "params": params})
        while True:
            message = await self._socket.receive_json(timeout=30)
            if message.get("id") == ask:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    async def goto(self, url: str) -> None:
        """Open ``url`` in this tab."""
        await self.call("Page.navigate", url=url)

    async def text(self) -> str:
        """What the page shows now, as ``document.body.innerText``."""
        result = await self.call(
            "Runtime.evaluate", expression="document.body ? document.body.innerText : ''"
        )
        return str(result.get("result", {}).get("value", ""))

    async def wait_for_text(self, shown: Callable[[str], bool], timeout: float = 20.0) -> str:
        """The page's text once ``shown(text)`` holds.

        Raises:
            AssertionError: it did not within ``timeout`` seconds (the last text is in it).
        """
        deadline = time.monotonic() + timeout
        while not shown(text := await self.text()):
            assert time.monotonic() < deadline, f"the page never showed it; it shows:\n{text}"
            await asyncio.sleep(0.25)
        return text


@contextlib.asynccontextmanager
async def headless_page() -> AsyncIterator[Page]:
    """A tab of a headless chromium started for this block, with a profile of its own."""
    assert Path(CHROMIUM).exists(), f"no {CHROMIUM}: `make browser` installs it (make test does)"
    profile = Path(tempfile.mkdtemp(prefix="chromium-"))
    proc = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port = await _devtools_port(profile, proc)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = await response.json()
            tab = next(t for t in targets if t.get("type") == "page")
            async with session.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as socket:
                yield Page(socket)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


async def _devtools_port(profile: Path, proc: subprocess.Popen[bytes]) -> int:
    """The port chromium wrote to ``DevToolsActivePort`` once it listens."""
    marker = profile / "DevToolsActivePort"
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text().strip()):
        assert proc.poll() is None, f"chromium exited with status {proc.returncode}"
        assert time.monotonic() < deadline, "chromium opened no DevTools port in 30 s"
        await asyncio.sleep(0.1)
    return int(marker.read_text().split()[0])
