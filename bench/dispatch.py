"""Cost of dispatching one operation, side by side with pluggy in the same run.

For N pass-through executors on each phase (N = 0, 1, 10) this times one
``HookManager.run`` (pre, in, post: 3N executors, plus redaction of the input) and
pluggy calling 3N no-op hookimpls with the same context. Both are timed in
interleaved rounds and the best round of each is kept, so a noisy neighbour moves
both figures alike. The last line is a JSON object; ``ratio`` is ours / pluggy at N=10.

``--watch stats`` times it with per-executor stats installed (kept in memory, as between two
flushes), ``--watch tracing`` with operation and decision spans (an SDK provider exporting
nowhere): what watching every executor call costs; nothing is installed by default.

Run: ``.venv/bin/python bench/dispatch.py [--rounds 7] [--calls 20000] [--watch stats]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

import pluggy

from harness.domain import TaskRef, ToolCall
from harness.hooks import HookManager
from harness.hooks.contexts import ToolInvokedContext

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")


class Spec:
    @hookspec
    def tool_invoked(self, ctx):
        """One hook taking the same context."""


def make_pluggy(impls: int) -> pluggy.PluginManager:
    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    for i in range(impls):

        class Plugin:
            @hookimpl
            def tool_invoked(self, ctx):
                return None

        pm.register(Plugin(), name=f"p{i}")
    return pm


def make_manager(per_phase: int, watch: str = "none") -> HookManager:
    manager = HookManager()
    if watch == "stats":
        from harness.hooks import register_executor_stats

        register_executor_stats(manager, None)
    elif watch == "tracing":
        from opentelemetry.sdk.trace import TracerProvider

        from harness.hooks import register_tracing

        register_tracing(manager, TracerProvider())

    async def passthrough(ctx):
        return None

    for phase in ("pre", "in", "post"):
        for _ in range(per_phase):
            manager.register(f"tool.invoked.{phase}", passthrough)
    return manager


CTX = ToolInvokedContext(
    task=TaskRef(task_id="slack-T1-C1-1712345678.000100", team="T1", channel="C1"),
    correlation_id="b7c4a1d2e3f4",
    idempotency_key="slack-T1-C1-1712345678.000100:7",
    call=ToolCall(id="call_01", name="web_search", arguments={"query": "weather in Paris"}),
)


async def time_ours(manager: HookManager, calls: int) -> float:
    run = manager.run
    start = time.perf_counter()
    for _ in range(calls):
        await run("tool.invoked", CTX)
    return (time.perf_counter() - start) / calls


def time_pluggy(pm: pluggy.PluginManager, calls: int) -> float:
    hook = pm.hook.tool_invoked
    start = time.perf_counter()
    for _ in range(calls):
        hook(ctx=CTX)
    return (time.perf_counter() - start) / calls


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--watch", choices=("none", "stats", "tracing"), default="none")
    args = parser.parse_args()

    figures: dict[str, dict[str, float]] = {}
    print(f"{'N per phase':>12} {'ours (us)':>10} {'pluggy 3N (us)':>15} {'ratio':>6}")
    for n in (0, 1, 10):
        manager, pm = make_manager(n, args.watch), make_pluggy(3 * n)
        await time_ours(manager, 1000)
        time_pluggy(pm, 1000)
        ours, base = [], []
        for _ in range(args.rounds):
            ours.append(await time_ours(manager, args.calls))
            base.append(time_pluggy(pm, args.calls))
        best_ours, best_base = min(ours) * 1e6, min(base) * 1e6
        ratio = best_ours / best_base
        figures[f"n{n}"] = {
            "ours_us": round(best_ours, 3),
            "pluggy_us": round(best_base, 3),
            "ratio": round(ratio, 3),
        }
        print(f"{n:>12} {best_ours:>10.2f} {best_base:>15.2f} {ratio:>6.2f}")
    watched = {} if args.watch == "none" else {"watch": args.watch}
    print(json.dumps({"bench": "dispatch", **watched, **figures, "ratio": figures["n10"]["ratio"]}))


if __name__ == "__main__":
    asyncio.run(main())
