"""Cost of a JsonRpcExecutor call, side by side with a raw aiohttp-client POST of the same body.

One local ``jsonrpc_app`` server (a pass-through ``tool.invoked.pre`` handler) runs in
its own process, so neither client shares an event loop with it; both clients call
that same server with the same ~1 KB request body. Raw = a default
``aiohttp.ClientSession`` posting the pre-encoded bytes and reading the reply; ours =
``JsonRpcExecutor`` on its default ``AiohttpClient`` (encode the context, POST under a
total deadline, validate the envelope and id). Sequential calls are interleaved call by
call in shuffled order; 32-concurrent throughput is timed in alternating blocks (ABBA),
and its ratio is the median of the per-round ours/raw pairs, so a burst of load from
elsewhere on the machine spoils one pair rather than the figure. The last line is a
JSON object; ``ratio`` is ours / raw sequential p50, ``conc_throughput_ratio`` ours / raw
calls per second at 32 concurrent callers.

Signing (issue 15): a third side, ``signed``, is the same executor signing every request
with one Standard Webhooks secret (the server does not verify, so the difference is the
client's cost: the HMAC and three headers). ``signing_seq_p50_ratio`` is signed / ours
sequential p50 and ``signing_seq_p50_delta_us`` the difference in microseconds;
``sign_us_per_call`` and ``verify_us_per_call`` time the signer and a server's verifier
alone, in process, on the same body. The raw and ours figures keep their meaning.

Run: ``.venv/bin/python bench/remote.py [--calls 3000] [--rounds 10] [--block 1024]
[--concurrency 32]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import statistics
import subprocess
import sys
import time

import aiohttp
from aiohttp import web

from harness.domain import Participant, Role, TaskRef, ToolCall
from harness.hook_server.jsonrpc import jsonrpc_app
from harness.hooks import JsonRpcExecutor
from harness.hooks.contexts import ToolInvokedContext
from harness.hooks.remote.signing import Signer, Verifier, message_id
from harness.hooks.remote.wire import encode_request

POINT = "tool.invoked.pre"
HEADERS = {"content-type": "application/json"}
MODES = ("seq", "conc")
METRICS = (("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("calls_per_s", "calls/s"))
SECRET = "whsec_" + "QmVuY2htYXJrLXNpZ25pbmcta2V5LTMyLWJ5dGVzIQ=="  # 32 bytes, bench only


def context() -> ToolInvokedContext:
    """A realistic context whose request body is about 1 KB."""
    return ToolInvokedContext(
        task=TaskRef(task_id="task-7f3a", team="T0001", channel="C0001", thread="1717.0001"),
        participants=(
            Participant(user_id="U01", role=Role.OWNER, name="ada"),
            Participant(user_id="U02", role=Role.WATCHER, name="grace"),
        ),
        entities={"repo": "acme/widgets", "ticket": "OPS-1234"},
        correlation_id="corr-5b1e9d",
        idempotency_key="task-7f3a:tool:17",
        call=ToolCall(
            id="call-17",
            name="search",
            arguments={"q": "p99 latency regression in the checkout service " * 10, "limit": 10},
        ),
    )


def serve(port: int) -> None:
    async def passthrough(ctx: ToolInvokedContext) -> None:
        return None

    web.run_app(jsonrpc_app({POINT: passthrough}), host="127.0.0.1", port=port, print=None)


def start_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("bench server did not start")


async def run_sequential(sides: dict, n: int, lat: dict, rng: random.Random) -> None:
    # Call by call, in a shuffled order per pair, so drift and cache effects hit both alike.
    names = list(sides)
    for _ in range(n):
        rng.shuffle(names)
        for name in names:
            t0 = time.perf_counter()
            await sides[name]()
            lat[name, "seq"].append(time.perf_counter() - t0)


async def run_concurrent(call, n: int, workers: int, out: list[float]) -> float:
    async def worker(count: int) -> None:
        for _ in range(count):
            t0 = time.perf_counter()
            await call()
            out.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker(n // workers) for _ in range(workers)))
    return time.perf_counter() - start


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1] * 1000


async def bench(
    url: str, calls: int, rounds: int, concurrency: int, block: int
) -> dict[str, float]:
    ctx = context()
    body = encode_request(1, POINT, {"context": ctx})
    session = aiohttp.ClientSession()
    executor = JsonRpcExecutor(url, point=POINT)
    signing = JsonRpcExecutor(url, point=POINT, signing_secrets=[SECRET])

    async def raw() -> None:
        async with session.post(url, data=body, headers=HEADERS) as resp:
            await resp.read()

    async def ours() -> None:
        await executor(ctx)

    async def signed() -> None:
        await signing(ctx)

    sides = {"raw": raw, "ours": ours, "signed": signed}
    for call in sides.values():  # warm-up: connections, caches, pydantic's lazy schemas
        await run_concurrent(call, concurrency * 10, concurrency, [])
    lat: dict[tuple[str, str], list[float]] = {(s, m): [] for s in sides for m in MODES}
    rate: dict[str, list[float]] = {side: [] for side in sides}
    rng = random.Random(7)
    per_round = calls // rounds
    for i in range(rounds):
        await run_sequential(sides, per_round, lat, rng)
        # Throughput needs blocks; the order flips every round (ABBA) to cancel drift, and
        # each round's pair gives one ratio, so a burst of load elsewhere on the machine
        # spoils one pair rather than the total.
        for side in list(sides)[:: 1 if i % 2 == 0 else -1]:
            seconds = await run_concurrent(sides[side], block, concurrency, lat[side, "conc"])
            rate[side].append(block / seconds)
    await session.close()
    await executor.aclose()
    await signing.aclose()
    figures: dict[str, float] = {"request_bytes": len(body), "seq_calls_per_side": calls}
    figures["conc_calls_per_side"] = rounds * block
    for side in sides:
        for mode in MODES:
            figures[f"{mode}_p50_ms_{side}"] = round(pct(lat[side, mode], 50), 4)
            figures[f"{mode}_p99_ms_{side}"] = round(pct(lat[side, mode], 99), 4)
        figures[f"seq_calls_per_s_{side}"] = round(len(lat[side, "seq"]) / sum(lat[side, "seq"]))
        figures[f"conc_calls_per_s_{side}"] = round(statistics.median(rate[side]))
    figures["ratio"] = round(figures["seq_p50_ms_ours"] / figures["seq_p50_ms_raw"], 3)
    figures["conc_p50_ratio"] = round(figures["conc_p50_ms_ours"] / figures["conc_p50_ms_raw"], 3)
    pairs = [ours / raw for ours, raw in zip(rate["ours"], rate["raw"], strict=True)]
    figures["conc_throughput_ratio"] = round(statistics.median(pairs), 3)
    figures["signing_seq_p50_ratio"] = round(
        figures["seq_p50_ms_signed"] / figures["seq_p50_ms_ours"], 3
    )
    figures["signing_seq_p50_delta_us"] = round(
        (figures["seq_p50_ms_signed"] - figures["seq_p50_ms_ours"]) * 1000, 1
    )
    pairs = [s / o for s, o in zip(rate["signed"], rate["ours"], strict=True)]
    figures["signing_conc_throughput_ratio"] = round(statistics.median(pairs), 3)
    figures |= sign_and_verify_cost(body)
    figures["targets_met"] = figures["ratio"] <= 1.2 and figures["conc_throughput_ratio"] >= 0.8
    return figures


def sign_and_verify_cost(body: bytes, n: int = 20000) -> dict[str, float]:
    """Microseconds per call of the signer (id, timestamp, HMAC, headers) and a verifier."""
    signer, verifier = Signer([SECRET]), Verifier([SECRET])
    best: dict[str, float] = {}
    for _ in range(5):  # best of five: the machine is shared; the minimum is the cost
        t0 = time.perf_counter()
        for _ in range(n):
            headers = signer.headers(message_id("task-7f3a:tool:17", POINT), body)
        t1 = time.perf_counter()
        for _ in range(n):
            verifier.verify(headers, body)
        t2 = time.perf_counter()
        for key, seconds in (("sign_us_per_call", t1 - t0), ("verify_us_per_call", t2 - t1)):
            best[key] = min(best.get(key, float("inf")), seconds / n * 1e6)
    return {key: round(value, 2) for key, value in best.items()}


def report(f: dict[str, float], concurrency: int) -> None:
    print(f"JSON-RPC call vs raw aiohttp POST, {int(f['request_bytes'])}-byte request, loopback")
    print(f"{'':24}{'raw aiohttp':>14}{'JsonRpcExecutor':>18}{'ours/raw':>10}")
    for mode, label in (("seq", "sequential"), ("conc", f"{concurrency} concurrent")):
        for metric, unit in METRICS:
            raw, ours = f[f"{mode}_{metric}_raw"], f[f"{mode}_{metric}_ours"]
            digits = 0 if metric == "calls_per_s" else 3
            print(
                f"{label + ' ' + unit:24}{raw:>14,.{digits}f}{ours:>18,.{digits}f}"
                f"{ours / raw:>10.2f}"
            )
    print(
        f"signing: sequential p50 signed/unsigned {f['signing_seq_p50_ratio']:.3f} "
        f"({f['signing_seq_p50_delta_us']:+.1f} us), {concurrency}-concurrent throughput "
        f"{f['signing_conc_throughput_ratio']:.3f}; sign {f['sign_us_per_call']:.2f} us, "
        f"verify {f['verify_us_per_call']:.2f} us per call (in process)"
    )
    print(
        f"targets: sequential p50 ratio {f['ratio']:.2f} (<= 1.2), "
        f"{concurrency}-concurrent throughput ratio {f['conc_throughput_ratio']:.2f} (>= 0.8)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="sequential calls per side")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--block", type=int, default=1024, help="concurrent calls per block")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    proc, url = start_server()
    try:
        figures = asyncio.run(bench(url, args.calls, args.rounds, args.concurrency, args.block))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    report(figures, args.concurrency)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
